import path from 'node:path'
import picomatch from 'picomatch'

/**
 * A Glob pattern compiled for the synchronous crawl: where it starts, which files it keeps and
 * which directories it enters, each as tinyglobby decides them for Glob's options
 * (docs/adr/0560-glob-compiles-its-pattern-once.md; test/tools/glob/crawl-matches.test.ts holds
 * the two side by side).
 */
export type CompiledPattern = {
  /** The pattern's fixed leading directories: the crawl starts there, following a link as tinyglobby does. */
  start: readonly string[]
  /** Whether a file, by its `/`-separated path relative to the search directory, matches. */
  matches: (relativePath: string) => boolean
  /** Whether a directory, by its path's segments relative to the search directory, may hold a match. */
  mayHoldMatches: (segments: readonly string[]) => boolean
}

/** tinyglobby's matching for Glob's options: dot files included, `/` the only separator. */
const MATCH_OPTIONS = { dot: true, posix: true }

/** Patterns kept compiled; past this many the oldest is dropped (a few KB each). */
const CACHED_PATTERNS = 128

const cache = new Map<string, CompiledPattern | null>()

/**
 * The pattern compiled, from the cache when it was seen before; undefined for a pattern whose
 * handling stays tinyglobby's own (an escape, a leading `!`, one that leaves the search directory).
 */
export function compiledPattern(pattern: string): CompiledPattern | undefined {
  let compiled = cache.get(pattern)
  if (compiled === undefined) {
    compiled = compile(pattern)
    if (cache.size >= CACHED_PATTERNS) cache.delete(cache.keys().next().value as string)
    cache.set(pattern, compiled)
  }
  return compiled ?? undefined
}

function compile(pattern: string): CompiledPattern | null {
  if (pattern.includes('\\') || pattern.startsWith('!')) return null
  // One trailing slash dropped, then normalised: `./src//*.ts` is `src/*.ts`.
  const normalized = path.posix.normalize(pattern.endsWith('/') ? pattern.slice(0, -1) : pattern)
  if (path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')) return null
  const scanned = picomatch.scan(normalized, { parts: true }).parts
  const parts = scanned?.length ? scanned : [normalized]
  const partMatchers = parts.map((part) => picomatch(part, MATCH_OPTIONS))
  const matches = picomatch(normalized, MATCH_OPTIONS)
  return {
    start: fixedStart(parts),
    matches,
    mayHoldMatches: (segments) => {
      const compared = Math.min(segments.length, parts.length)
      for (let index = 0; index < compared; index += 1) {
        const part = parts[index] as string
        // A part spanning directories (`{a/b,c}`) is not compared segment by segment: entered.
        if (part.includes('/')) return true
        if (!(partMatchers[index] as (input: string) => boolean)(segments[index] as string)) return false
        if (part === '**') return true
      }
      return segments.length <= parts.length
    },
  }
}

/**
 * The leading parts with no glob in them, the last part (a file's name) aside. A pattern ending
 * in `dir/**` starts above `dir`, so `dir` is met as an entry and, when it is a link, not followed.
 */
function fixedStart(parts: readonly string[]): string[] {
  const start: string[] = []
  for (const [index, part] of parts.entries()) {
    if (part === '**' && !parts[index + 1]) {
      start.pop()
      break
    }
    if (index === parts.length - 1 || isDynamic(part)) break
    start.push(part)
  }
  return start
}

function isDynamic(part: string): boolean {
  const scanned = picomatch.scan(part)
  return scanned.isGlob || scanned.negated
}
