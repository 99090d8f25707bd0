import { realpathSync } from 'node:fs'
import { resolveRealPath } from './resolve-real-path.js'

/**
 * Real paths resolved during the current turn of the event loop, dropped at the next one.
 * The calls of one batch start in the same turn and share one resolution of each working
 * directory; every later turn resolves it again, so a directory swapped for a link between
 * calls is still seen (docs/adr/0152-working-directory-check-once-per-turn.md).
 */
let thisTurn: Map<string, string> | undefined

function remember(absolutePath: string, real: string): string {
  if (!thisTurn) {
    const turn = new Map<string, string>()
    thisTurn = turn
    setImmediate(() => {
      if (thisTurn === turn) thisTurn = undefined
    })
  }
  thisTurn.set(absolutePath, real)
  return real
}

/**
 * This turn's token: the same object for every lookup of one turn once a resolution was made in
 * it, undefined before; what is kept for the turn (docs/adr/0603) is kept against it.
 */
export function resolutionTurn(): object | undefined {
  return thisTurn
}

/** This turn's resolution of `absolutePath`, when one was made. */
export function knownRealPath(absolutePath: string): string | undefined {
  return thisTurn?.get(absolutePath)
}

/**
 * Records `real` as this turn's resolution of `absolutePath`, made another way (a file named by
 * its descriptor, docs/adr/0522-a-read-names-its-file-once.md): later lookups in the turn, the
 * permission rules' among them (docs/adr/0466), get it.
 */
export function rememberRealPath(absolutePath: string, real: string): void {
  remember(absolutePath, real)
}

/**
 * The real path of an absolute directory (or any path): one synchronous realpath(3) for a path
 * that exists (a few system calls, cheaper than a threadpool round trip), the async
 * resolveRealPath (dangling links followed) for one that does not. Never served from an
 * earlier turn of the event loop.
 */
export async function realDirectory(absolutePath: string): Promise<string> {
  return realDirectoryNowOrLater(absolutePath)
}

/**
 * realDirectory's answer without a promise when realpath(3) gives it, its promise otherwise: for
 * a caller that awaits only when it must (docs/adr/0603).
 */
export function realDirectoryNowOrLater(absolutePath: string): string | Promise<string> {
  return existingRealDirectory(absolutePath) ?? resolveAndRemember(absolutePath)
}

async function resolveAndRemember(absolutePath: string): Promise<string> {
  return remember(absolutePath, await resolveRealPath(absolutePath))
}

/**
 * realDirectory's answer for a path realpath(3) resolves, given without a promise; undefined
 * when it does not (missing, a dangling link, ELOOP): realDirectory then decides
 * (docs/adr/0516-existing-working-directories-resolve-without-promises.md).
 */
export function existingRealDirectory(absolutePath: string): string | undefined {
  const known = thisTurn?.get(absolutePath)
  if (known !== undefined) return known
  let real: string
  try {
    real = realpathSync.native(absolutePath)
  } catch {
    return undefined
  }
  return remember(absolutePath, real)
}
