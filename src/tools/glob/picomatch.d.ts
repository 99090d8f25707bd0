// picomatch ships no types, and @types/picomatch is not installed: the part Glob uses
// (docs/adr/0560-glob-compiles-its-pattern-once.md).
declare module 'picomatch' {
  type MatchOptions = { dot?: boolean; posix?: boolean }
  type ScanResult = { isGlob: boolean; negated: boolean; parts?: string[] }
  type Picomatch = {
    (glob: string, options?: MatchOptions): (input: string) => boolean
    scan(input: string, options?: { parts?: boolean }): ScanResult
  }
  const picomatch: Picomatch
  export default picomatch
}
