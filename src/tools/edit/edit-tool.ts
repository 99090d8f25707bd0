import { closeSync } from 'node:fs'
import { z } from 'zod'
import { keepForTheCall, readNamedFileAgain } from '../../paths/named-file.js'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolUseContext } from '../../tool/tool.js'
import { recordWrite } from '../shared/check-read-before-write.js'
import { readSmallSync, readTextFile, readWhole } from '../shared/descriptor-io.js'
import { statIfExists } from '../shared/file-stats.js'
import { tryResolveConfinedPath } from '../shared/resolve-confined-path.js'
import { type ConfinedResolution, rememberResolution, takeResolution } from '../shared/validated-paths.js'
import { writeConfinedFile } from '../shared/write-opened-file.js'
import { applyEdit, editSnippet } from './apply-edit.js'
import { editNamedFile } from './edit-named-file.js'
import { editRefusal } from './editable-file.js'

const EDIT_TOOL_NAME = 'Edit'

const EditInputSchema = z.strictObject({
  file_path: z.string().describe('Absolute path of the file to modify'),
  old_string: z.string().describe('The exact text to replace (empty only to create a new file)'),
  new_string: z.string().describe('The text to replace it with (must differ from old_string)'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false)'),
})
export type EditInput = z.infer<typeof EditInputSchema>

export type EditOutput = { filePath: string; replacements: number; created: boolean; snippet: string }

const PROMPT = `Performs an exact string replacement in a file.

- You must have read the file with Read in this session, and it must not have changed since; otherwise the edit is refused and you must Read it again.
- old_string must match the file exactly, including whitespace and indentation. Read shows each line as a line number, a tab, then the line: never include that prefix in old_string or new_string.
- The edit fails if old_string occurs more than once: add surrounding lines to make it unique, or set replace_all to replace every occurrence (useful for renaming).
- old_string and new_string must differ.
- An empty old_string creates a new file (or fills an empty one) with new_string.
- Prefer editing existing files to creating new ones.`

/** `original`: the content, null for a file that does not exist, undefined when not read. */
type Plan =
  | { ok: true; resolution: ConfinedResolution; original: string | null | undefined }
  | { ok: false; message: string }

/**
 * The checks of an edit. `readContent` false skips reading a file whose text is to be replaced:
 * the call reads it again through the descriptor it writes (docs/adr/0386-edits-read-the-file-once-per-call.md).
 * `resolved`: the call's validation already confined the path (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md);
 * the file's state is checked again all the same, by path. Validation names an existing file
 * once, its stats and text from that object (docs/adr/0525-an-edit-names-its-file-once.md).
 */
async function planEdit(
  input: EditInput,
  context: ToolUseContext,
  readContent = true,
  resolved?: ConfinedResolution,
): Promise<Plan> {
  if (input.old_string === input.new_string) {
    return { ok: false, message: 'No changes to make: old_string and new_string are exactly the same.' }
  }
  const confined = resolved
    ? { ok: true as const, ...resolved }
    : await tryResolveConfinedPath(input.file_path, context, 'write', true)
  if (!confined.ok) return confined
  const resolution = { realPath: confined.realPath, roots: confined.roots, named: confined.named }
  const { realPath } = resolution
  // Named just now: that object's stats; a call's re-check stats the path.
  const named = resolved ? undefined : confined.named
  const stats = named ? named.stats : await statIfExists(realPath)
  if (stats === null) {
    if (input.old_string === '') return { ok: true, resolution, original: null }
    return { ok: false, message: `File does not exist: ${input.file_path}. The working directory is ${context.cwd}.` }
  }
  const refused = editRefusal(input.file_path, realPath, stats, context)
  if (refused) return { ok: false, message: refused }
  if (!readContent && input.old_string !== '') return { ok: true, resolution, original: undefined }
  // A small file in one synchronous read, as the call reads it (docs/adr/0480).
  const original = await readCurrentText(realPath, named)
  if (input.old_string === '' && original !== '') {
    return {
      ok: false,
      message: `Cannot create ${input.file_path}: it already exists and is not empty. Give the text to replace in old_string.`,
    }
  }
  return { ok: true, resolution, original }
}

export const EditTool = buildTool({
  name: EDIT_TOOL_NAME,
  ruleFamily: 'edit',
  inSimpleMode: true,
  searchHint: 'replace exact text in a file',
  inputSchema: EditInputSchema,
  maxResultSizeChars: 100_000,
  checkPermissions: deferToPermissionRules,
  description: 'Replace exact text in a file',
  prompt: PROMPT,
  getPath: (input: EditInput) => input.file_path,
  async validateInput(input: EditInput, context) {
    const plan = await planEdit(input, context)
    if (!plan.ok) return { result: false, message: plan.message }
    if (typeof plan.original === 'string' && input.old_string !== '') {
      const outcome = applyEdit(plan.original, edit(input), input.file_path)
      if (!outcome.ok) return { result: false, message: outcome.message }
    }
    rememberResolution(input, input.file_path, context, plan.resolution)
    return { result: true }
  },
  async call(input: EditInput, context) {
    // Planned again: the file may have changed between validation and the call. Its path is
    // the one validation resolved (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md).
    const resolved = takeResolution(input, input.file_path, context)
    // In validation's turn, through the object it named (docs/adr/0525-an-edit-names-its-file-once.md).
    if (resolved && input.old_string !== '' && input.old_string !== input.new_string) {
      const data = await editNamedFile(input.file_path, edit(input), resolved, context)
      if (data) return { data }
    }
    const plan = await planEdit(input, context, false, resolved)
    if (!plan.ok) throw new Error(plan.message)
    // A replacement's file exists (planEdit refuses one that does not).
    if (plan.original !== null && input.old_string !== '') {
      // The edit is applied to the content read through the descriptor that is then written:
      // the file checked, read and replaced is one object (docs/adr/0091-open-through-checked-descriptors.md).
      let outcome: ReturnType<typeof applyEdit> | undefined
      const realPath = await writeConfinedFile(
        input.file_path,
        context,
        async (handle) => {
          outcome = applyEdit(await handle.readFile('utf8'), edit(input), input.file_path)
          if (!outcome.ok) throw new Error(outcome.message)
          return outcome.content
        },
        plan.resolution,
      )
      if (outcome === undefined || !outcome.ok) throw new Error('The edit was not applied.')
      recordWrite(realPath, context)
      const snippet = editSnippet(outcome.content, outcome.firstIndex, outcome.insertedLength)
      const data: EditOutput = { filePath: realPath, replacements: outcome.replacements, created: false, snippet }
      return { data }
    }
    const realPath = await writeConfinedFile(input.file_path, context, input.new_string, plan.resolution)
    recordWrite(realPath, context)
    const data: EditOutput = { filePath: realPath, replacements: 1, created: plan.original === null, snippet: '' }
    return { data }
  },
  mapToolResult(data: EditOutput) {
    if (data.created) return { content: `File created successfully at: ${data.filePath}` }
    const count = data.replacements === 1 ? '1 replacement' : `${data.replacements} replacements`
    const snippet = data.snippet === '' ? '' : `\nHere is the edited part of the file (cat -n):\n${data.snippet}`
    return { content: `The file ${data.filePath} has been updated (${count}).${snippet}` }
  },
})

/**
 * The text of the file validation reads: through the object it named when it named one (docs/adr/0525),
 * and, read in this turn, that descriptor and the bytes read kept for the call to compare and
 * write through (docs/adr/0606, docs/adr/0608).
 */
async function readCurrentText(realPath: string, named: ConfinedResolution['named']): Promise<string> {
  // Any error opening it (a mode that forbids reading) is the path's to report, in its words.
  const reopened = named && tryOrUndefined(() => readNamedFileAgain(named))
  if (named === undefined || reopened === undefined) return readTextFile(realPath)
  const small = readSmallSync(reopened.fd, named.stats.size)
  if (small && keepForTheCall(named, reopened, small)) return small.toString('utf8')
  try {
    return (small ?? (await readWhole(reopened.fd, named.stats.size))).toString('utf8')
  } finally {
    closeSync(reopened.fd)
  }
}

function tryOrUndefined<T>(open: () => T): T | undefined {
  try {
    return open()
  } catch {
    return undefined
  }
}

function edit(input: EditInput) {
  return { oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all ?? false }
}
