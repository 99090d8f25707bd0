import { lstatSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { isInsideAny } from '../../paths/is-inside.js'
import { resolveRealPath } from '../../paths/resolve-real-path.js'
import type { Listing } from './crawl-matches.js'

/**
 * Only names whose directory really lies inside the working directories. The crawler starts
 * below `path` at the fixed part of the pattern (`link/*` starts in `link`), and that start is
 * followed even when it is a symlink, so a planted link would list another tree's names
 * (docs/adr/0092-glob-and-grep-stay-inside.md). The search directory itself is checked again
 * like any other: validation's answer says nothing of what its path names now.
 */
export async function listedInside(listing: Listing, roots: readonly string[]): Promise<string[]> {
  const { files, runStarts } = listing
  // A listing whose runs do not start at its first name is not the compiled crawl's: each name is compared.
  if (runStarts === undefined || (files.length > 0 && runStarts[0] !== 0)) return listedByName(files, roots)
  const verdicts = new Map<string, boolean>()
  // The crawl says where each directory's run of names starts: one verdict per run, by its first
  // name's directory, and no test of each name; an answer all inside is the crawl's own array
  // (docs/adr/0595-glob-takes-its-runs-of-names-from-the-crawl.md).
  let kept: string[] | undefined
  for (let run = 0; run < runStarts.length; run += 1) {
    const start = runStarts[run] as number
    const end = runStarts[run + 1] ?? files.length
    const directory = path.dirname(files[start] as string)
    if (verdicts.get(directory) ?? (await verdictOf(directory, verdicts, roots))) {
      if (kept) for (let index = start; index < end; index += 1) kept.push(files[index] as string)
    } else {
      kept ??= files.slice(0, start)
    }
  }
  return kept ?? files
}

/** listedInside for names from tinyglobby, which says nothing of its runs. */
async function listedByName(files: string[], roots: readonly string[]): Promise<string[]> {
  const verdicts = new Map<string, boolean>()
  const kept: string[] = []
  // A crawl lists a directory's files one after another: a file whose last `/` ends the previous
  // file's directory has that directory, and its verdict is reused without a new name to look up
  // (docs/adr/0561-glob-confirms-each-listed-directory-once.md).
  // NUL ends no listed name's directory: the first file always finds its verdict.
  let directory = '\0'
  let inside = false
  for (const file of files) {
    if (file.lastIndexOf('/') !== directory.length || !file.startsWith(directory)) {
      directory = path.dirname(file)
      inside = verdicts.get(directory) ?? (await verdictOf(directory, verdicts, roots))
    }
    if (inside) kept.push(file)
  }
  return kept
}

/** A directory's verdict, found by the checks and remembered. */
async function verdictOf(
  directory: string,
  verdicts: Map<string, boolean>,
  roots: readonly string[],
): Promise<boolean> {
  const verdict = insideByParent(directory, verdicts) ?? (await insideByRealPath(directory, roots))
  verdicts.set(directory, verdict)
  return verdict
}

/**
 * True when `directory` is a real directory (not a link) in a directory already found inside:
 * its real path is then its parent's plus its name, inside as well. One lstat per level instead
 * of a realpath(3) with a readlink per component (docs/adr/0528-glob-checks-what-it-crawled-cheaply.md).
 * Undefined when that cannot tell: the caller resolves the real path.
 */
function insideByParent(directory: string, verdicts: Map<string, boolean>): true | undefined {
  const parent = path.dirname(directory)
  if (parent === directory) return undefined
  let parentInside = verdicts.get(parent)
  if (parentInside === undefined) {
    parentInside = insideByParent(parent, verdicts)
    if (parentInside) verdicts.set(parent, true)
  }
  if (parentInside !== true) return undefined
  try {
    return lstatSync(directory, { throwIfNoEntry: false })?.isDirectory() ? true : undefined
  } catch {
    return undefined
  }
}

/** The verdict by the directory's real path. */
async function insideByRealPath(directory: string, roots: readonly string[]): Promise<boolean> {
  // A directory just listed exists: one synchronous realpath, no promise per name
  // (docs/adr/0312); one gone since is resolved as any missing path is.
  return isInsideAny(roots, existingRealPath(directory) ?? (await resolveRealPath(directory)))
}

function existingRealPath(directory: string): string | undefined {
  try {
    return realpathSync.native(directory)
  } catch {
    return undefined
  }
}
