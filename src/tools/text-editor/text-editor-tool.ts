import { constants, type Stats } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { FileReadRecord, ToolUseContext, ValidationResult } from '../../tool/tool.js'
import type { TextEditorType } from '../../tool/toolset.js'
import { recordWrite } from '../shared/check-read-before-write.js'
import { statIfExists } from '../shared/file-stats.js'
import { openConfinedFile, tryResolveConfinedPath } from '../shared/resolve-confined-path.js'
import { writeConfinedFile } from '../shared/write-opened-file.js'
import { catN, clip, editorMessages as messages, SNIPPET_LINES } from './editor-messages.js'
import { listDirectory } from './list-directory.js'
import { viewFile } from './view-file.js'

const TextEditorInputSchema = z.strictObject({
  command: z.string().describe('view, create, str_replace, insert (and undo_edit for str_replace_editor)'),
  path: z.string().describe('Absolute path of the file or directory'),
  file_text: z.string().optional(),
  old_str: z.string().optional(),
  new_str: z.string().optional(),
  insert_line: z.number().int().optional(),
  // The documentation names the inserted text `insert_text`; the reference reads `new_str`: both are taken.
  insert_text: z.string().optional(),
  view_range: z.array(z.number().int()).max(16).optional(),
})
export type TextEditorInput = z.infer<typeof TextEditorInputSchema>

/** Editor files are held in memory a few times over; bigger ones are for bash. */
const MAX_FILE_BYTES = 10 * 1024 * 1024
const MAX_UNDO_PER_FILE = 10

/** Undo history per session: keyed by the session's own read-state map, so it lives and dies with it. */
const histories = new WeakMap<Map<string, FileReadRecord>, Map<string, string[]>>()
function historyOf(context: ToolUseContext, realPath: string): string[] {
  const files = histories.get(context.readFileState) ?? new Map<string, string[]>()
  histories.set(context.readFileState, files)
  const history = files.get(realPath) ?? []
  files.set(realPath, history)
  return history
}
function remember(context: ToolUseContext, realPath: string, content: string): void {
  const history = historyOf(context, realPath)
  history.push(content)
  if (history.length > MAX_UNDO_PER_FILE) history.shift()
}

async function readText(filePath: string, context: ToolUseContext): Promise<{ content: string; stats: Stats }> {
  const { handle } = await openConfinedFile(filePath, context, 'read', constants.O_RDONLY)
  try {
    const stats = await handle.stat()
    if (stats.size > MAX_FILE_BYTES) throw new Error(`${filePath} is ${stats.size} bytes, too large for the editor.`)
    return { content: await handle.readFile('utf8'), stats }
  } finally {
    await handle.close()
  }
}

async function recordView(realPath: string, stats: Stats, context: ToolUseContext): Promise<void> {
  context.readFileState.set(realPath, { mtimeMs: stats.mtimeMs, size: stats.size, partial: false })
}

/** toolexec's read-before-edit safety, as Edit has it (docs/adr/0144-client-tool-permissions.md). */
function checkViewed(realPath: string, shown: string, stats: Stats, context: ToolUseContext): ValidationResult {
  const record = context.readFileState.get(realPath)
  if (!record) return { result: false, message: messages.notViewed(shown) }
  if (record.mtimeMs !== stats.mtimeMs || record.size !== stats.size) {
    return { result: false, message: messages.changedSinceView(shown) }
  }
  return { result: true }
}

/** Line numbers (1-based) where each occurrence of `needle` starts. */
function occurrenceLines(content: string, needle: string): number[] {
  const lines: number[] = []
  for (let index = content.indexOf(needle); index !== -1; index = content.indexOf(needle, index + 1)) {
    lines.push(content.slice(0, index).split('\n').length)
  }
  return lines
}

/**
 * The three versions of Anthropic's text editor (docs/tools.md#the-messages-apis-client-tools):
 * 20250728 and 20250429 are named `str_replace_based_edit_tool` and have no `undo_edit`;
 * 20250124 is named `str_replace_editor` and has it.
 */
export function createTextEditorTool(options: { type: TextEditorType; maxCharacters?: number }) {
  const name = options.type === 'text_editor_20250124' ? 'str_replace_editor' : 'str_replace_based_edit_tool'
  const commands =
    options.type === 'text_editor_20250124'
      ? ['view', 'create', 'str_replace', 'insert', 'undo_edit']
      : ['view', 'create', 'str_replace', 'insert']
  // max_characters is a tool option of the 20250728 version only.
  const maxCharacters = options.type === 'text_editor_20250728' ? options.maxCharacters : undefined

  async function run(input: TextEditorInput, context: ToolUseContext): Promise<string> {
    const shown = input.path
    if (!commands.includes(input.command)) throw new Error(messages.unrecognized(input.command, name, commands))
    if (!path.isAbsolute(shown)) throw new Error(messages.notAbsolute(shown, path.resolve(context.cwd, shown)))
    const access = input.command === 'view' ? 'read' : 'write'
    const confined = await tryResolveConfinedPath(shown, context, access)
    if (!confined.ok) throw new Error(confined.message)
    const { realPath } = confined
    const stats = await statIfExists(realPath)
    if (stats === null && input.command !== 'create') throw new Error(messages.doesNotExist(shown))
    if (stats !== null && input.command === 'create') throw new Error(messages.alreadyExists(shown))
    if (stats?.isDirectory() && input.command !== 'view') throw new Error(messages.directoryNotViewed(shown))

    switch (input.command) {
      case 'view': {
        if (stats?.isDirectory()) {
          if (input.view_range !== undefined) throw new Error(messages.viewRangeOnDirectory)
          return messages.directoryListing(shown, clip(await listDirectory(realPath, shown), maxCharacters))
        }
        const file = await readText(shown, context)
        await recordView(realPath, file.stats, context)
        return viewFile(file.content, shown, input.view_range, maxCharacters)
      }
      case 'create': {
        if (input.file_text === undefined) throw new Error(messages.required('file_text', 'create'))
        const written = await writeConfinedFile(shown, context, input.file_text)
        recordWrite(written, context)
        remember(context, written, '')
        return messages.created(shown)
      }
      case 'str_replace': {
        if (input.old_str === undefined) throw new Error(messages.required('old_str', 'str_replace'))
        const oldStr = input.old_str
        const newStr = input.new_str ?? ''
        if (oldStr === '') throw new Error(messages.emptyOldStr(shown))
        let snippet = ''
        const written = await writeConfinedFile(shown, context, async (handle) => {
          const content = await handle.readFile('utf8')
          const lines = occurrenceLines(content, oldStr)
          if (lines.length === 0) throw new Error(messages.noMatch(oldStr, shown))
          if (lines.length > 1) throw new Error(messages.multipleMatches(oldStr, lines))
          const index = content.indexOf(oldStr)
          const updated = content.slice(0, index) + newStr + content.slice(index + oldStr.length)
          const replacementLine = (lines[0] as number) - 1
          const start = Math.max(0, replacementLine - SNIPPET_LINES)
          const end = replacementLine + SNIPPET_LINES + newStr.split('\n').length - 1
          snippet = catN(
            updated
              .split('\n')
              .slice(start, end + 1)
              .join('\n'),
            `a snippet of ${shown}`,
            start + 1,
          )
          remember(context, realPath, content)
          return updated
        })
        recordWrite(written, context)
        return messages.edited(shown, snippet)
      }
      case 'insert': {
        if (input.insert_line === undefined) throw new Error(messages.required('insert_line', 'insert'))
        const text = input.insert_text ?? input.new_str
        if (text === undefined) throw new Error(messages.required('insert_text', 'insert'))
        const line = input.insert_line
        let snippet = ''
        const written = await writeConfinedFile(shown, context, async (handle) => {
          const content = await handle.readFile('utf8')
          const lines = content.split('\n')
          if (line < 0 || line > lines.length) throw new Error(messages.insertLine(line, lines.length))
          const inserted = text.split('\n')
          const shownLines = [
            ...lines.slice(Math.max(0, line - SNIPPET_LINES), line),
            ...inserted,
            ...lines.slice(line, line + SNIPPET_LINES),
          ]
          snippet = catN(shownLines.join('\n'), 'a snippet of the edited file', Math.max(1, line - SNIPPET_LINES + 1))
          remember(context, realPath, content)
          return [...lines.slice(0, line), ...inserted, ...lines.slice(line)].join('\n')
        })
        recordWrite(written, context)
        return messages.inserted(shown, snippet)
      }
      default: {
        const history = historyOf(context, realPath)
        const previous = history.pop()
        if (previous === undefined) throw new Error(messages.noHistory(shown))
        const written = await writeConfinedFile(shown, context, previous)
        recordWrite(written, context)
        return messages.undone(shown, previous)
      }
    }
  }

  return buildTool({
    name,
    // Edit(...) rules, as Edit's (docs/adr/0144-client-tool-permissions.md).
    ruleFamily: 'edit',
    apiType: options.type,
    ...(maxCharacters === undefined ? {} : { apiOptions: { max_characters: maxCharacters } }),
    searchHint: 'view create and edit files with str_replace',
    inputSchema: TextEditorInputSchema,
    maxResultSizeChars: 100_000,
    checkPermissions: deferToPermissionRules,
    description: 'View, create and edit files',
    prompt:
      "Anthropic's text editor tool: view files and directories, create files, replace a unique string, insert text after a line.",
    isReadOnly: (input: TextEditorInput) => input.command === 'view',
    deniedAlsoBy: {
      Read: (input: TextEditorInput) => input.command === 'view',
      Write: (input: TextEditorInput) => input.command !== 'view',
    },
    isConcurrencySafe: (input: TextEditorInput) => input.command === 'view',
    getPath: (input: TextEditorInput) => input.path,
    /**
     * toolexec's own checks, before hooks and permissions: the path is confined, and an existing
     * file is changed only once this session has viewed it. The reference's own errors come from
     * `call`, unwrapped, exactly as the reference words them (docs/adr/0142-client-tool-texts.md).
     */
    async validateInput(input: TextEditorInput, context) {
      if (!path.isAbsolute(input.path) || !commands.includes(input.command)) return { result: true }
      const confined = await tryResolveConfinedPath(input.path, context, input.command === 'view' ? 'read' : 'write')
      if (!confined.ok) return { result: false, message: confined.message }
      if (input.command !== 'str_replace' && input.command !== 'insert') return { result: true }
      const stats = await statIfExists(confined.realPath)
      if (stats === null || !stats.isFile()) return { result: true }
      return checkViewed(confined.realPath, input.path, stats, context)
    },
    async call(input: TextEditorInput, context) {
      return { data: await run(input, context) }
    },
  })
}
