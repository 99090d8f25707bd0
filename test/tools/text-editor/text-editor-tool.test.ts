// Pins the text editor client tools' commands and every text they answer with, worded as
// Anthropic's documentation and reference implementation word them (docs/adr/0142-client-tool-texts.md).
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolUseContext } from '../../../src/tool/tool.js'
import { createTextEditorTool, type TextEditorInput } from '../../../src/tools/text-editor/text-editor-tool.js'
import { createTestContext, useTestWorkspace } from '../../helpers/tool-context.js'

const editor = createTextEditorTool({ type: 'text_editor_20250728' })
const legacy = createTextEditorTool({ type: 'text_editor_20250124' })

/** The text the model gets: the result, or the bare error (validation first, as the pipeline does). */
async function use(tool: typeof editor, input: TextEditorInput, context: ToolUseContext): Promise<string> {
  const valid = await tool.validateInput(input, context)
  if (!valid.result) return `<tool_use_error>${valid.message}</tool_use_error>`
  try {
    return (await tool.call(input, context)).data
  } catch (error) {
    return `ERROR: ${(error as Error).message}`
  }
}

async function setup() {
  const workspace = await useTestWorkspace()
  const context = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
  const file = path.join(workspace.cwd, 'primes.py')
  await writeFile(file, 'def is_prime(n):\n    return n > 1\n\nprint(is_prime(7))\n')
  return { workspace, context, file }
}

describe('text editor: view', () => {
  it('shows a file as cat -n does', async () => {
    const { context, file } = await setup()
    expect(await use(editor, { command: 'view', path: file }, context)).toBe(
      `Here's the result of running \`cat -n\` on ${file}:\n     1\tdef is_prime(n):\n     2\t    return n > 1\n     3\t\n     4\tprint(is_prime(7))\n     5\t\n`,
    )
  })

  it('shows a view_range, -1 meaning the end', async () => {
    const { context, file } = await setup()
    expect(await use(editor, { command: 'view', path: file, view_range: [2, 3] }, context)).toBe(
      `Here's the result of running \`cat -n\` on ${file}:\n     2\t    return n > 1\n     3\t\n`,
    )
    expect(await use(editor, { command: 'view', path: file, view_range: [4, -1] }, context)).toBe(
      `Here's the result of running \`cat -n\` on ${file}:\n     4\tprint(is_prime(7))\n     5\t\n`,
    )
  })

  it('refuses view_range out of bounds with the reference texts', async () => {
    const { context, file } = await setup()
    expect(await use(editor, { command: 'view', path: file, view_range: [0, 2] }, context)).toBe(
      'ERROR: Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 5]',
    )
    expect(await use(editor, { command: 'view', path: file, view_range: [1, 9] }, context)).toBe(
      'ERROR: Invalid `view_range`: [1, 9]. Its second element `9` should be smaller than the number of lines in the file: `5`',
    )
    expect(await use(editor, { command: 'view', path: file, view_range: [3, 2] }, context)).toBe(
      'ERROR: Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than its first `3`',
    )
    expect(await use(editor, { command: 'view', path: file, view_range: [1] }, context)).toBe(
      'ERROR: Invalid `view_range`. It should be a list of two integers.',
    )
  })

  it('lists a directory two levels deep without hidden items', async () => {
    const { workspace, context } = await setup()
    await writeFile(path.join(workspace.cwd, '.env'), 'hidden')
    expect(await use(editor, { command: 'view', path: workspace.cwd }, context)).toBe(
      `Here's the files and directories up to 2 levels deep in ${workspace.cwd}, excluding hidden items:\n${workspace.cwd}\n${workspace.cwd}/primes.py\n`,
    )
    expect(await use(editor, { command: 'view', path: workspace.cwd, view_range: [1, 2] }, context)).toBe(
      'ERROR: The `view_range` parameter is not allowed when `path` points to a directory.',
    )
  })

  it('cuts a long view at max_characters with the reference note', async () => {
    const { context, file } = await setup()
    const small = createTextEditorTool({ type: 'text_editor_20250728', maxCharacters: 10 })
    const text = await use(small, { command: 'view', path: file }, context)
    expect(text).toContain('     1\tdef is_pri<response clipped><NOTE>To save on context only part of this file')
    expect(small.apiOptions).toEqual({ max_characters: 10 })
  })

  it('answers a missing path, a relative path and an unknown command as the reference does', async () => {
    const { workspace, context } = await setup()
    const missing = path.join(workspace.cwd, 'nope.py')
    expect(await use(editor, { command: 'view', path: missing }, context)).toBe(
      `ERROR: The path ${missing} does not exist. Please provide a valid path.`,
    )
    expect(await use(editor, { command: 'view', path: 'primes.py' }, context)).toBe(
      `ERROR: The path primes.py is not an absolute path, it should start with \`/\`. Maybe you meant ${path.join(workspace.cwd, 'primes.py')}?`,
    )
    expect(await use(editor, { command: 'undo_edit', path: missing }, context)).toBe(
      'ERROR: Unrecognized command undo_edit. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert',
    )
  })
})

describe('text editor: str_replace', () => {
  it('replaces a unique string and shows the snippet', async () => {
    const { context, file } = await setup()
    await use(editor, { command: 'view', path: file }, context)
    const text = await use(editor, { command: 'str_replace', path: file, old_str: 'n > 1', new_str: 'n >= 2' }, context)
    expect(text).toBe(
      `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of ${file}:\n     1\tdef is_prime(n):\n     2\t    return n >= 2\n     3\t\n     4\tprint(is_prime(7))\n     5\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.`,
    )
    expect(await readFile(file, 'utf8')).toContain('return n >= 2')
  })

  it('refuses a missing or repeated old_str with the reference texts', async () => {
    const { context, file } = await setup()
    await use(editor, { command: 'view', path: file }, context)
    expect(await use(editor, { command: 'str_replace', path: file, old_str: 'absent', new_str: 'x' }, context)).toBe(
      `ERROR: No replacement was performed, old_str \`absent\` did not appear verbatim in ${file}.`,
    )
    expect(await use(editor, { command: 'str_replace', path: file, old_str: 'is_prime', new_str: 'x' }, context)).toBe(
      'ERROR: No replacement was performed. Multiple occurrences of old_str `is_prime` in lines [1, 4]. Please ensure it is unique',
    )
    expect(await use(editor, { command: 'str_replace', path: file }, context)).toBe(
      'ERROR: Parameter `old_str` is required for command: str_replace',
    )
  })

  it('refuses to edit a file this session has not viewed, or that changed since', async () => {
    const { context, file } = await setup()
    expect(await use(editor, { command: 'str_replace', path: file, old_str: 'n > 1', new_str: 'y' }, context)).toBe(
      `<tool_use_error>The file ${file} has not been viewed in this session. View it first (command \`view\`), then retry.</tool_use_error>`,
    )
    await use(editor, { command: 'view', path: file }, context)
    await writeFile(file, 'changed by someone else\n')
    expect(await use(editor, { command: 'insert', path: file, insert_line: 0, insert_text: 'y' }, context)).toBe(
      `<tool_use_error>The file ${file} was modified since it was last viewed (by the user, a command or another tool). View it again, then retry.</tool_use_error>`,
    )
  })
})

describe('text editor: insert and create', () => {
  it('inserts after a line, with insert_text or (as the reference reads it) new_str', async () => {
    const { context, file } = await setup()
    await use(editor, { command: 'view', path: file }, context)
    const text = await use(editor, { command: 'insert', path: file, insert_line: 0, insert_text: '# primes' }, context)
    expect(text).toBe(
      `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of the edited file:\n     1\t# primes\n     2\tdef is_prime(n):\n     3\t    return n > 1\n     4\t\n     5\tprint(is_prime(7))\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
    )
    await use(editor, { command: 'insert', path: file, insert_line: 1, new_str: '# two' }, context)
    expect((await readFile(file, 'utf8')).split('\n').slice(0, 2)).toEqual(['# primes', '# two'])
    expect(await use(editor, { command: 'insert', path: file, insert_line: 99, insert_text: 'x' }, context)).toBe(
      'ERROR: Invalid `insert_line` parameter: 99. It should be within the range of lines of the file: [0, 7]',
    )
    expect(await use(editor, { command: 'insert', path: file, insert_text: 'x' }, context)).toBe(
      'ERROR: Parameter `insert_line` is required for command: insert',
    )
    expect(await use(editor, { command: 'insert', path: file, insert_line: 0 }, context)).toBe(
      'ERROR: Parameter `insert_text` is required for command: insert',
    )
  })

  it('creates a file with its parents and never overwrites one', async () => {
    const { workspace, context, file } = await setup()
    const created = path.join(workspace.cwd, 'pkg', 'util.py')
    expect(await use(editor, { command: 'create', path: created, file_text: 'X = 1\n' }, context)).toBe(
      `File created successfully at: ${created}`,
    )
    expect(await readFile(created, 'utf8')).toBe('X = 1\n')
    expect(await use(editor, { command: 'create', path: file, file_text: 'gone' }, context)).toBe(
      `ERROR: File already exists at: ${file}. Cannot overwrite files using command \`create\`.`,
    )
    expect(await use(editor, { command: 'create', path: path.join(workspace.cwd, 'b.py') }, context)).toBe(
      'ERROR: Parameter `file_text` is required for command: create',
    )
    expect(await use(editor, { command: 'str_replace', path: workspace.cwd, old_str: 'a' }, context)).toBe(
      `ERROR: The path ${workspace.cwd} is a directory and only the \`view\` command can be used on directories`,
    )
  })
})

describe('str_replace_editor (text_editor_20250124): undo_edit', () => {
  it('undoes the last edit, and says when there is none', async () => {
    const { context, file } = await setup()
    const original = await readFile(file, 'utf8')
    expect(await use(legacy, { command: 'undo_edit', path: file }, context)).toBe(
      `ERROR: No edit history found for ${file}.`,
    )
    await use(legacy, { command: 'view', path: file }, context)
    await use(legacy, { command: 'str_replace', path: file, old_str: 'n > 1', new_str: 'True' }, context)
    const text = await use(legacy, { command: 'undo_edit', path: file }, context)
    expect(
      text.startsWith(
        `Last edit to ${file} undone successfully. Here's the result of running \`cat -n\` on ${file}:\n     1\tdef is_prime(n):`,
      ),
    ).toBe(true)
    expect(await readFile(file, 'utf8')).toBe(original)
    expect(legacy.name).toBe('str_replace_editor')
    expect(legacy.apiType).toBe('text_editor_20250124')
  })
})
