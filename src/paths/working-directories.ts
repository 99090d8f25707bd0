import path from 'node:path'
import { isInside } from './is-inside.js'
import { existingRealDirectory, realDirectory, resolutionTurn } from './real-directory.js'

/** `read` also admits the tenant's blob directory (read-only); `write` only the working directories. */
export type PathAccess = 'read' | 'write'

/** The parts of a call's context that say where it may work. */
export type WorkingDirectoryContext = {
  readonly cwd: string
  readonly permissionContext: { readonly additionalWorkingDirectories: readonly string[] }
  readonly environment?: { readonly blobDirectory?: string; readonly workspaceRoot?: string }
}

/**
 * A working directory whose real path has left the tenant's workspace since the session was
 * created (it, or a parent, was replaced by a symlink). The message names the directory as the
 * session holds it, never where it now points (docs/adr/0090-working-directories-checked-per-call.md).
 */
export class WorkingDirectoryEscapeError extends Error {
  override name = 'WorkingDirectoryEscapeError'
  constructor(readonly directory: string) {
    super(
      `The working directory ${directory} no longer lies inside the workspace (it or a parent was replaced by a link): the call is refused.`,
    )
  }
}

/**
 * The session cwd, the additional working directories, then (for `read`) the blob directory,
 * as the session holds them: the list messages name.
 */
export function workingDirectories(context: WorkingDirectoryContext, access: PathAccess): string[] {
  const directories = [context.cwd, ...context.permissionContext.additionalWorkingDirectories]
  const blobs = context.environment?.blobDirectory
  if (access === 'read' && blobs) directories.push(blobs)
  return directories
}

/**
 * The tenants' workspace roots as real paths, resolved at their first check and kept: the check
 * of 0090 holds each working directory to where the root really was, and a root moved or
 * replaced by a link since then refuses the calls instead of re-rooting them
 * (docs/adr/0523-the-workspace-root-is-resolved-once.md). Bounded: cleared past this many.
 */
const realRoots = new Map<string, string>()
const MAX_KEPT_ROOTS = 1_024

/** The kept real path of the root `rootPath` (absolute), resolved now when it exists and was not yet; undefined when it does not. */
function existingRealRoot(rootPath: string): string | undefined {
  const kept = realRoots.get(rootPath)
  if (kept !== undefined) return kept
  const real = existingRealDirectory(rootPath)
  if (real === undefined) return undefined
  if (realRoots.size >= MAX_KEPT_ROOTS) realRoots.clear()
  realRoots.set(rootPath, real)
  return real
}

/** The tenant's workspace root as a real path, or undefined when the context names none. */
export async function realWorkspaceRoot(context: WorkingDirectoryContext): Promise<string | undefined> {
  const root = context.environment?.workspaceRoot
  if (root === undefined) return undefined
  const absolute = path.resolve(root)
  return existingRealRoot(absolute) ?? realDirectory(absolute)
}

/**
 * The same list as real paths, resolved on every call, for containment checks. The session's
 * directories were confined when it was created, but any of them may have been replaced by a
 * symlink since (by a command of this or another session of the tenant): each resolved
 * directory must still lie inside the tenant's workspace root, or the whole call is refused
 * with a WorkingDirectoryEscapeError (docs/adr/0090-working-directories-checked-per-call.md).
 * The blob directory is the service's own and is not under the tenant's root. Each directory is
 * resolved at most once per turn of the event loop (docs/adr/0152-working-directory-check-once-per-turn.md),
 * the root once (docs/adr/0523).
 */
export async function realWorkingDirectories(
  context: WorkingDirectoryContext,
  access: PathAccess,
): Promise<readonly string[]> {
  return workingDirectoriesNowOrLater(context, access)
}

/**
 * realWorkingDirectories' list without a promise when it is at hand (kept this turn, or every
 * directory exists), its promise otherwise; a refusal is thrown where realWorkingDirectories
 * rejects (docs/adr/0603).
 */
export function workingDirectoriesNowOrLater(
  context: WorkingDirectoryContext,
  access: PathAccess,
): readonly string[] | Promise<readonly string[]> {
  return keptWorkingDirectories(context, access) ?? resolveWorkingDirectories(context, access)
}

/** One context's list for one access, as made in this turn, with what it was made from. */
type KeptList = {
  cwd: string
  additional: readonly string[]
  blobDirectory: string | undefined
  workspaceRoot: string | undefined
  real: readonly string[]
}

/** The lists made in the turn `turn` (resolutionTurn), by access and context. */
let kept: { turn: object; read: WeakMap<object, KeptList>; write: WeakMap<object, KeptList> } | undefined

/**
 * existingWorkingDirectories, made once per context, access and turn: a path tool's validation and
 * its permission decision ask for the same list in the same turn, and the second answer is the
 * first. Within a turn every directory's resolution is already the turn's one (docs/adr/0152)
 * and the root's the kept one (0523), so the list made again would be this very list; it is made
 * afresh when the turn, the context object or what it names changed
 * (docs/adr/0603-working-directories-are-listed-once-per-turn.md).
 */
function keptWorkingDirectories(context: WorkingDirectoryContext, access: PathAccess): readonly string[] | undefined {
  const environment = context.environment
  const additional = context.permissionContext.additionalWorkingDirectories
  const turn = resolutionTurn()
  const held = turn !== undefined && kept?.turn === turn ? kept[access].get(context) : undefined
  if (
    held !== undefined &&
    held.cwd === context.cwd &&
    held.additional === additional &&
    held.blobDirectory === environment?.blobDirectory &&
    held.workspaceRoot === environment?.workspaceRoot
  )
    return held.real
  const real = existingWorkingDirectories(context, access)
  // The list resolved the cwd, so this turn has its token now.
  const now = resolutionTurn()
  if (real === undefined || now === undefined) return real
  if (kept?.turn !== now) kept = { turn: now, read: new WeakMap(), write: new WeakMap() }
  kept[access].set(context, {
    cwd: context.cwd,
    additional,
    blobDirectory: environment?.blobDirectory,
    workspaceRoot: environment?.workspaceRoot,
    real,
  })
  return real
}

async function resolveWorkingDirectories(context: WorkingDirectoryContext, access: PathAccess): Promise<string[]> {
  const root = await realWorkspaceRoot(context)
  const held = [context.cwd, ...context.permissionContext.additionalWorkingDirectories]
  const real = await Promise.all(held.map((directory) => realDirectory(path.resolve(directory))))
  checkInside(root, held, real)
  const blobs = context.environment?.blobDirectory
  return access === 'read' && blobs ? [...real, await realDirectory(path.resolve(blobs))] : real
}

/**
 * The same list when every directory (and the root) exists, resolved without a promise, with the
 * same check; undefined when one does not, and resolveWorkingDirectories then resolves them all
 * (docs/adr/0516-existing-working-directories-resolve-without-promises.md).
 */
function existingWorkingDirectories(context: WorkingDirectoryContext, access: PathAccess): string[] | undefined {
  const rootPath = context.environment?.workspaceRoot
  const root = rootPath === undefined ? undefined : existingRealRoot(path.resolve(rootPath))
  if (rootPath !== undefined && root === undefined) return undefined
  const held = [context.cwd, ...context.permissionContext.additionalWorkingDirectories]
  const real: string[] = []
  for (const directory of held) {
    const resolved = existingRealDirectory(path.resolve(directory))
    if (resolved === undefined) return undefined
    real.push(resolved)
  }
  checkInside(root, held, real)
  const blobs = context.environment?.blobDirectory
  if (access !== 'read' || !blobs) return real
  const blobDirectory = existingRealDirectory(path.resolve(blobs))
  return blobDirectory === undefined ? undefined : [...real, blobDirectory]
}

/** Throws for the first directory whose real path left the root (docs/adr/0090). */
function checkInside(root: string | undefined, held: readonly string[], real: readonly string[]): void {
  real.forEach((directory, index) => {
    if (root !== undefined && !isInside(root, directory)) throw new WorkingDirectoryEscapeError(held[index] as string)
  })
}
