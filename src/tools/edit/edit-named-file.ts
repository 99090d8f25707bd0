import { closeSync, constants, fstatSync, type Stats } from 'node:fs'
import { type KeptRead, openNamedFile, takeKeptRead } from '../../paths/named-file.js'
import type { ToolUseContext } from '../../tool/tool.js'
import { modifiedSinceRead, recordWrite } from '../shared/check-read-before-write.js'
import { readSmallSync, readWhole, replaceWhole } from '../shared/descriptor-io.js'
import type { ConfinedResolution } from '../shared/validated-paths.js'
import { applyEdit, type EditOutcome, type EditRequest, editSnippet } from './apply-edit.js'
import { editRefusal } from './editable-file.js'

type EditedFile = { filePath: string; replacements: number; created: false; snippet: string }

/**
 * A replacement made in the call's turn through the file its validation named: that very object
 * reopened for writing, its state checked on the descriptor's own stats, its text read again
 * through it (never validation's copy: a change in the same clock tick can keep size and times),
 * written, and the session's record taken from the descriptor (docs/adr/0525-an-edit-names-its-file-once.md,
 * docs/adr/0526-a-write-is-recorded-from-its-descriptor.md). Through the descriptor validation
 * kept, when it kept one, the text is compared with what validation read instead (0608).
 * Undefined when the call must go by path as before: not named in this turn, unlinked since, or
 * not openable for writing (the path's route then gives its own answer).
 */
export async function editNamedFile(
  displayPath: string,
  request: EditRequest,
  resolution: ConfinedResolution,
  context: Pick<ToolUseContext, 'readFileState'>,
): Promise<EditedFile | undefined> {
  const { named, realPath } = resolution
  if (!named) return undefined
  const kept = takeKeptRead(named)
  if (kept) {
    const result = editKeptRead(displayPath, request, realPath, named.stats, kept, context)
    return result instanceof Promise ? await result : result
  }
  let fd: number | undefined
  try {
    fd = openNamedFile(named, constants.O_RDWR)
  } catch {
    return undefined
  }
  if (fd === undefined) return undefined
  try {
    const stats = fstatSync(fd)
    // Removed from its directory since it was named: writing it would lose the edit.
    if (stats.nlink === 0) return undefined
    const refused = editRefusal(displayPath, realPath, stats, context)
    if (refused) throw new Error(refused)
    // A small file read and written inline awaits nothing: no turn of the microtask queue
    // between the call's start and its answer (docs/adr/0589-an-inline-edit-awaits-nothing.md).
    const text = (readSmallSync(fd, stats.size) ?? (await readWhole(fd, stats.size))).toString('utf8')
    const outcome = applyEdit(text, request, displayPath)
    if (!outcome.ok) throw new Error(outcome.message)
    const result = written(fd, stats, outcome, realPath, context)
    return result instanceof Promise ? await result : result
  } finally {
    closeSync(fd)
  }
}

/**
 * The call's replacement through the descriptor its validation read and kept, in the same turn
 * (docs/adr/0608-an-edit-compares-the-bytes-its-validation-read.md): the file read again and
 * compared with the bytes validation checked, whose stats (`checked`, the named object's) passed
 * the same refusals; any difference is a change since the read. Whether the file was removed from
 * its directory meanwhile is told by the stats taken after the write, which the record needs
 * anyway: undefined then, and the path's route answers. Without a promise when written inline (0589).
 */
function editKeptRead(
  displayPath: string,
  request: EditRequest,
  realPath: string,
  checked: Stats,
  kept: KeptRead,
  context: Pick<ToolUseContext, 'readFileState'>,
): MaybeEdited {
  let result: MaybeEdited
  try {
    const again = readSmallSync(kept.fd, kept.content.length)
    if (!again?.equals(kept.content)) throw new Error(modifiedSinceRead(displayPath))
    const outcome = applyEdit(again.toString('utf8'), request, displayPath)
    if (!outcome.ok) throw new Error(outcome.message)
    result = written(kept.fd, checked, outcome, realPath, context)
  } catch (error) {
    closeSync(kept.fd)
    throw error
  }
  if (!(result instanceof Promise)) {
    closeSync(kept.fd)
    return result
  }
  return result.finally(() => closeSync(kept.fd))
}

type MaybeEdited = EditedFile | undefined | Promise<EditedFile | undefined>

/**
 * `outcome` written through `fd` (whose stats were `before`), recorded from the stats taken after
 * the write (docs/adr/0526); undefined when those say the file no longer has a name. Without a
 * promise when written inline (docs/adr/0589-an-inline-edit-awaits-nothing.md).
 */
function written(
  fd: number,
  before: Stats,
  outcome: Extract<EditOutcome, { ok: true }>,
  realPath: string,
  context: Pick<ToolUseContext, 'readFileState'>,
): MaybeEdited {
  const recorded = (after: Stats): EditedFile | undefined => {
    if (after.nlink === 0) return undefined
    recordWrite(realPath, context, after)
    const snippet = editSnippet(outcome.content, outcome.firstIndex, outcome.insertedLength)
    return { filePath: realPath, replacements: outcome.replacements, created: false, snippet }
  }
  const replaced = replaceWhole(fd, Buffer.from(outcome.content), before)
  return replaced instanceof Promise ? replaced.then(recorded) : recorded(replaced)
}
