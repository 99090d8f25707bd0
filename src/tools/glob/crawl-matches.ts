import { type Dirent, readdirSync } from 'node:fs'
import path from 'node:path'
import { type GlobOptions, glob, globSync } from 'tinyglobby'
import { type CompiledPattern, compiledPattern } from './compiled-pattern.js'

/**
 * Crawls that read at most this many directory entries run synchronously: a small tree's few
 * `getdents` cost less than the threadpool round trip of an asynchronous crawl, and 512
 * entries hold the event loop well under a millisecond. Larger trees are crawled again
 * asynchronously, so the loop is never held long (docs/adr/0465-small-crawls-run-synchronously.md).
 */
export const SYNC_CRAWL_ENTRIES = 512

/**
 * What a crawl listed: the files, and where the crawl itself knows them, where each run of names
 * read from one directory starts: `files[runStarts[i]]` up to the next start (or the end) share
 * one directory. Only the compiled crawl knows its runs; tinyglobby's answer has none, and its
 * names are compared with each other (docs/adr/0595-glob-takes-its-runs-of-names-from-the-crawl.md).
 */
export type Listing = { files: string[]; runStarts?: number[] }

/**
 * How Glob crawls under `cwd`: files only, as absolute paths, dot files included, links not
 * followed, `.git` left out (docs/adr/0092-glob-and-grep-stay-inside.md).
 */
export function globCrawlOptions(cwd: string): Omit<GlobOptions, 'fs' | 'signal'> {
  return {
    cwd,
    absolute: true,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: ['**/.git/**'],
  }
}

/**
 * The files `pattern` matches under `cwd`, as tinyglobby's `glob` finds them. A small tree is
 * crawled synchronously with the pattern compiled once (docs/adr/0560-glob-compiles-its-pattern-once.md),
 * or with tinyglobby's `globSync` for a pattern left to it; either stops once past
 * SYNC_CRAWL_ENTRIES, and its partial answer is dropped for tinyglobby's asynchronous crawl.
 * `signal`: asked for only by the asynchronous crawl, the one an abort can stop; the synchronous
 * one ends in its turn, and the call's signal is not created for it (docs/adr/0528-glob-checks-what-it-crawled-cheaply.md).
 */
export async function crawlMatches(pattern: string, cwd: string, signal?: () => AbortSignal): Promise<Listing> {
  const compiled = compiledPattern(pattern)
  const options = globCrawlOptions(cwd)
  const listing = compiled ? crawlCompiled(cwd, compiled) : crawlWithGlobSync(pattern, options)
  return listing ?? { files: await glob(pattern, signal ? { ...options, signal: signal() } : options) }
}

/**
 * The synchronous crawl of a compiled pattern, as tinyglobby's would go for Glob's options: from
 * the pattern's fixed start, into the directories that may hold a match, files only, links
 * neither listed nor followed, and no `.git` at any depth (its ignore `**\/.git/**` matches the
 * name itself). Undefined once past SYNC_CRAWL_ENTRIES; a directory that cannot be read is skipped.
 * Each file is its directory's path, a `/`, and its name; a new run starts whenever a match's
 * directory is not the previous match's (so again when a directory's names resume after a
 * subdirectory's).
 */
function crawlCompiled(cwd: string, compiled: CompiledPattern): Listing | undefined {
  if (compiled.start.includes('.git')) return { files: [], runStarts: [] }
  const found: string[] = []
  const runStarts: number[] = []
  let current = ''
  let left = SYNC_CRAWL_ENTRIES
  const crawl = (directory: string, relative: string, segments: readonly string[]): boolean => {
    let entries: Dirent[]
    try {
      entries = readdirSync(directory, { withFileTypes: true })
    } catch {
      return true
    }
    left -= entries.length
    if (left < 0) return false
    const prefix = directory.endsWith('/') ? directory : `${directory}/`
    for (const entry of entries) {
      const name = entry.name
      if (name === '.git') continue
      if (entry.isFile()) {
        if (compiled.matches(relative + name)) {
          if (current !== directory) {
            current = directory
            runStarts.push(found.length)
          }
          found.push(prefix + name)
        }
      } else if (entry.isDirectory()) {
        const below = [...segments, name]
        if (compiled.mayHoldMatches(below) && !crawl(prefix + name, `${relative}${name}/`, below)) return false
      }
    }
    return true
  }
  const start = compiled.start
  const relative = start.length > 0 ? `${start.join('/')}/` : ''
  return crawl(path.posix.join(cwd, ...start), relative, start) ? { files: found, runStarts } : undefined
}

/** tinyglobby's synchronous crawl, reading directories through a counter; undefined once past SYNC_CRAWL_ENTRIES. */
function crawlWithGlobSync(pattern: string, options: Omit<GlobOptions, 'fs' | 'signal'>): Listing | undefined {
  let left = SYNC_CRAWL_ENTRIES
  const countedReaddirSync = ((directory: string, readOptions: { withFileTypes: true }) => {
    if (left < 0) return []
    const entries = readdirSync(directory, readOptions)
    left -= entries.length
    return left < 0 ? [] : entries
  }) as typeof readdirSync
  const files = globSync(pattern, { ...options, fs: { readdirSync: countedReaddirSync } })
  return left < 0 ? undefined : { files }
}
