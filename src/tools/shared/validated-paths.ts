import type { NamedFile } from '../../paths/named-file.js'
import type { WorkingDirectoryContext } from '../../paths/working-directories.js'

/**
 * A path validation confined: its real path, the real working directories it was checked
 * against, and the descriptor that named it when it was named (docs/adr/0522).
 */
export type ConfinedResolution = { realPath: string; roots: readonly string[]; named?: NamedFile | undefined }

type Remembered = ConfinedResolution & { path: string; cwd: string }

/**
 * Validation's resolution of a call's path, keyed by the call's input object: the executor
 * hands the very object it validated to `call`, so the call opens what validation resolved and
 * the permission rules saw instead of resolving it again (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md).
 * An input rewritten by a hook or an approver is a new object, validated again.
 */
const resolutions = new WeakMap<object, Remembered>()

/** Remembers `resolution` of `path` for the call of `input`. */
export function rememberResolution(
  input: object,
  path: string,
  context: WorkingDirectoryContext,
  resolution: ConfinedResolution,
): void {
  resolutions.set(input, {
    path,
    cwd: context.cwd,
    realPath: resolution.realPath,
    roots: resolution.roots,
    named: resolution.named,
  })
}

/**
 * The resolution validation made of `path` for `input`, once: undefined when validation did not
 * run, or the path or cwd is no longer the one it resolved (an input changed in place).
 */
export function takeResolution(
  input: object,
  path: string,
  context: WorkingDirectoryContext,
): ConfinedResolution | undefined {
  const remembered = resolutions.get(input)
  if (remembered === undefined) return undefined
  resolutions.delete(input)
  if (remembered.path !== path || remembered.cwd !== context.cwd) return undefined
  return { realPath: remembered.realPath, roots: remembered.roots, named: remembered.named }
}
