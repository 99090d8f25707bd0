// Pins the memory client tool: each command and each text, as Anthropic's memory tool
// documentation and SDK helpers word them, that /memories is per tenant and per session, and that a
// store refusal never shows the host path.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolUseContext } from '../../../src/tool/tool.js'
import { createMemoryTool, type MemoryInput } from '../../../src/tools/memory/memory-tool.js'
import { createTestContext, useTestWorkspace } from '../../helpers/tool-context.js'

async function setup() {
  const workspace = await useTestWorkspace()
  const store = path.join(workspace.root, 'memory')
  const tool = createMemoryTool(({ tenant, sessionId }) => path.join(store, tenant, sessionId, 'memories'))
  const context = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
  const use = async (input: MemoryInput, on: ToolUseContext = context): Promise<string> => {
    try {
      return (await tool.call(input, on)).data
    } catch (error) {
      return `ERROR: ${(error as Error).message}`
    }
  }
  return { workspace, store, tool, context, use }
}

describe('memory tool', () => {
  it("answers a store the service cannot write with the error code, never the operator's host path", async () => {
    const { store, use } = await setup()
    // A file where the tenant's directory should be: refused for any user, root included.
    await mkdir(store, { recursive: true })
    await writeFile(path.join(store, 'tenant-a'), 'not a directory')
    const answer = await use({ command: 'create', path: '/memories/a.md', file_text: 'x' })
    expect(answer).toMatch(/^ERROR: The memory store is not usable right now \(E[A-Z]+\)/)
    expect(answer).not.toContain(store)
  })

  it('answers a path the file system refuses with the /memories path and the code, never the host path', async () => {
    const { store, use } = await setup()
    const long = `/memories/${'n'.repeat(300)}.md`
    const tooLong = await use({ command: 'create', path: long, file_text: 'x' })
    expect(tooLong).toBe(`ERROR: The memory operation on ${long} was refused (ENAMETOOLONG).`)
    expect(await use({ command: 'view', path: long })).not.toContain(store)
    await use({ command: 'create', path: '/memories/notes/a.md', file_text: 'x' })
    const intoItself = await use({ command: 'rename', old_path: '/memories/notes', new_path: '/memories/notes/inner' })
    expect(intoItself).toBe(
      'ERROR: The memory operation on /memories/notes → /memories/notes/inner was refused (EINVAL).',
    )
  })

  it('views an empty /memories, creates, views a file and a range', async () => {
    const { use } = await setup()
    expect(await use({ command: 'view', path: '/memories' })).toMatch(
      /^Here're the files and directories up to 2 levels deep in \/memories, excluding hidden items and node_modules:\n\d+(\.\d)?K\t\/memories$/,
    )
    expect(await use({ command: 'create', path: '/memories/notes.md', file_text: 'Prefers tabs.\nLikes tests.' })).toBe(
      'File created successfully at: /memories/notes.md',
    )
    expect(await use({ command: 'view', path: '/memories/notes.md' })).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     1\tPrefers tabs.\n     2\tLikes tests.",
    )
    expect(await use({ command: 'view', path: '/memories/notes.md', view_range: [2, -1] })).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     2\tLikes tests.",
    )
    expect(await use({ command: 'view', path: '/memories' })).toMatch(/\n26B\t\/memories\/notes\.md$/)
    expect(await use({ command: 'create', path: '/memories/notes.md', file_text: 'x' })).toBe(
      'ERROR: Error: File /memories/notes.md already exists',
    )
  })

  it('str_replace and insert, with their texts and refusals', async () => {
    const { use } = await setup()
    await use({ command: 'create', path: '/memories/p.md', file_text: 'a\nb\nc\nb' })
    expect(await use({ command: 'str_replace', path: '/memories/p.md', old_str: 'c', new_str: 'C' })).toBe(
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\ta\n     2\tb\n     3\tC\n     4\tb',
    )
    expect(await use({ command: 'str_replace', path: '/memories/p.md', old_str: 'zz', new_str: 'y' })).toBe(
      'ERROR: No replacement was performed, old_str `zz` did not appear verbatim in /memories/p.md.',
    )
    expect(await use({ command: 'str_replace', path: '/memories/p.md', old_str: 'b', new_str: 'y' })).toBe(
      'ERROR: No replacement was performed. Multiple occurrences of old_str `b` in lines: 2, 4. Please ensure it is unique',
    )
    expect(await use({ command: 'insert', path: '/memories/p.md', insert_line: 0, insert_text: 'top\n' })).toBe(
      'The file /memories/p.md has been edited.',
    )
    expect(await use({ command: 'insert', path: '/memories/p.md', insert_line: 9, insert_text: 'x' })).toBe(
      'ERROR: Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 5]',
    )
    expect(await use({ command: 'view', path: '/memories/missing.md' })).toBe(
      'ERROR: The path /memories/missing.md does not exist. Please provide a valid path.',
    )
  })

  it('renames and deletes, and never the root', async () => {
    const { use } = await setup()
    await use({ command: 'create', path: '/memories/a/one.md', file_text: '1' })
    await use({ command: 'create', path: '/memories/b.md', file_text: '2' })
    expect(await use({ command: 'rename', old_path: '/memories/a/one.md', new_path: '/memories/b.md' })).toBe(
      'ERROR: Error: The destination /memories/b.md already exists',
    )
    expect(await use({ command: 'rename', old_path: '/memories/a', new_path: '/memories/archive/a' })).toBe(
      'Successfully renamed /memories/a to /memories/archive/a',
    )
    expect(await use({ command: 'view', path: '/memories/archive/a/one.md' })).toContain('     1\t1')
    expect(await use({ command: 'delete', path: '/memories/archive' })).toBe('Successfully deleted /memories/archive')
    expect(await use({ command: 'delete', path: '/memories/archive' })).toBe(
      'ERROR: The path /memories/archive does not exist. Please provide a valid path.',
    )
    expect(await use({ command: 'delete', path: '/memories' })).toBe(
      'ERROR: Cannot delete the /memories directory itself',
    )
  })

  it('keeps each session its own /memories', async () => {
    const { workspace, store, use } = await setup()
    await use({ command: 'create', path: '/memories/x.md', file_text: 'mine' })
    const other = { ...createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot }), sessionId: 'session-2' }
    expect(await use({ command: 'view', path: '/memories/x.md' }, other)).toBe(
      'ERROR: The path /memories/x.md does not exist. Please provide a valid path.',
    )
    expect(await readFile(path.join(store, 'tenant-a', 'session-1', 'memories', 'x.md'), 'utf8')).toBe('mine')
    await mkdir(path.join(store, 'unused'), { recursive: true })
  })
})
