import { lstatSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

/**
 * The lstat-mtimes addon (native/addon/lstat-mtimes.c), compiled by scripts/build-spawner.ts
 * beside the sources (the tests) or into dist/ (`npm run build`), as the native spawner is.
 */
const MTIMES_ADDON = fileURLToPath(new URL('../../../native/addon/lstat-mtimes.node', import.meta.url))

/** Each path's own modification time in ms; -1 where lstat(2) failed, NaN where the addon cannot say. */
export type MtimesAddon = { lstatMtimes(paths: readonly string[]): Float64Array }

function loadAddon(): MtimesAddon | undefined {
  try {
    return createRequire(import.meta.url)(MTIMES_ADDON) as MtimesAddon
  } catch {
    // Not built (no C compiler, no Node headers): lstatSync answers, the same times.
    return undefined
  }
}

/** The addon in force, undefined where it is not built. */
export const mtimesAddon = loadAddon()

/** A file's own modification time; 0 for a file gone since it was listed (it sorts last). */
function mtimeOf(file: string): number {
  try {
    return lstatSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0
  } catch {
    return 0
  }
}

/**
 * Each file's own modification time (a symlink's own), 0 for one gone or unreadable, as
 * `lstatSync(file).mtimeMs` says it. Through the addon, one lstat(2) per file and no `Stats`
 * object with its four `Date`s: on Node 20 those were most of a Glob's stamping
 * (docs/adr/0585-newest-first-stamps-without-stats-objects.md); `lstatSync` where it is not built.
 */
export function lstatMtimes(files: readonly string[], addon: MtimesAddon | null = mtimesAddon ?? null): number[] {
  if (!addon) return files.map(mtimeOf)
  const times = addon.lstatMtimes(files)
  const stamped: number[] = new Array(files.length)
  for (let index = 0; index < files.length; index += 1) {
    const time = times[index] as number
    stamped[index] = time === -1 ? 0 : Number.isNaN(time) ? mtimeOf(files[index] as string) : time
  }
  return stamped
}
