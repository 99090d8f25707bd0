import { readdirSync } from 'node:fs'
import { type GlobOptions, glob, globSync } from 'tinyglobby'

/**
 * Crawls that read at most this many directory entries run synchronously: a small tree's few
 * `getdents` cost less than the threadpool round trip of an asynchronous crawl, and 512
 * entries hold the event loop well under a millisecond. Larger trees are crawled again
 * asynchronously, so the loop is never held long (docs/adr/0465-small-crawls-run-synchronously.md).
 */
export const SYNC_CRAWL_ENTRIES = 512

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
 * The files `pattern` matches under `options.cwd`, as tinyglobby's `glob` finds them. The
 * synchronous crawl reads directories through a counter: once past SYNC_CRAWL_ENTRIES it reads
 * nothing more, and its partial answer is dropped for the asynchronous crawl's. `signal`: asked
 * for only by the asynchronous crawl, the one an abort can stop; the synchronous one ends in its
 * turn, and the call's signal is not created for it (docs/adr/0528-glob-checks-what-it-crawled-cheaply.md).
 */
export async function crawlMatches(
  pattern: string,
  options: Omit<GlobOptions, 'fs' | 'signal'>,
  signal?: () => AbortSignal,
): Promise<string[]> {
  let left = SYNC_CRAWL_ENTRIES
  const countedReaddirSync = ((directory: string, readOptions: { withFileTypes: true }) => {
    if (left < 0) return []
    const entries = readdirSync(directory, readOptions)
    left -= entries.length
    return left < 0 ? [] : entries
  }) as typeof readdirSync
  const files = globSync(pattern, { ...options, fs: { readdirSync: countedReaddirSync } })
  return left < 0 ? glob(pattern, signal ? { ...options, signal: signal() } : options) : files
}
