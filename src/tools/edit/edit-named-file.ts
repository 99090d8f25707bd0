import { closeSync, constants, fstatSync } from 'node:fs'
import { openNamedFile } from '../../paths/named-file.js'
import type { ToolUseContext } from '../../tool/tool.js'
import { recordWrite } from '../shared/check-read-before-write.js'
import { readSmallSync, readWhole, replaceWhole } from '../shared/descriptor-io.js'
import type { ConfinedResolution } from '../shared/validated-paths.js'
import { applyEdit, type EditRequest, editSnippet } from './apply-edit.js'
import { editRefusal } from './editable-file.js'

type EditedFile = { filePath: string; replacements: number; created: false; snippet: string }

/**
 * A replacement made in the call's turn through the file its validation named: that very object
 * reopened for writing, its state checked on the descriptor's own stats, its text read again
 * through it (never validation's copy: a change in the same clock tick can keep size and times),
 * written, and the session's record taken from the descriptor (docs/adr/0525-an-edit-names-its-file-once.md,
 * docs/adr/0526-a-write-is-recorded-from-its-descriptor.md). Undefined when the call must go by
 * path as before: not named in this turn, unlinked since, or not openable for writing (the path's
 * route then gives its own answer).
 */
export async function editNamedFile(
  displayPath: string,
  request: EditRequest,
  resolution: ConfinedResolution,
  context: Pick<ToolUseContext, 'readFileState'>,
): Promise<EditedFile | undefined> {
  const { named, realPath } = resolution
  if (!named) return undefined
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
    const written = replaceWhole(fd, Buffer.from(outcome.content), stats)
    recordWrite(realPath, context, written instanceof Promise ? await written : written)
    const snippet = editSnippet(outcome.content, outcome.firstIndex, outcome.insertedLength)
    return { filePath: realPath, replacements: outcome.replacements, created: false, snippet }
  } finally {
    closeSync(fd)
  }
}
