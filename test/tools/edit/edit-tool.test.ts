// Pins Edit: exact unique matches, replace_all, the errors that tell the model what to do, read-before-edit.
import { readFileSync, renameSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolUseContext } from '../../../src/tool/tool.js'
import { EditTool } from '../../../src/tools/edit/edit-tool.js'
import { ReadTool } from '../../../src/tools/read/read-tool.js'
import { SYNC_IO_LIMIT } from '../../../src/tools/shared/descriptor-io.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { okData, runTool } from '../helpers.js'

/** Validation names its file only in a turn that has not resolved the path yet, as a run's own turn. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

let workspace: TestWorkspace
let ctx: ToolUseContext
beforeEach(async () => {
  workspace = await createTestWorkspace()
  ctx = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
})
afterEach(() => workspace.cleanup())

async function fileReadInSession(name: string, content: string): Promise<string> {
  const target = path.join(workspace.cwd, name)
  await writeFile(target, content)
  const read = await runTool(ReadTool, { file_path: name }, ctx)
  if (!read.ok) throw new Error(read.message)
  return target
}

describe('Edit', () => {
  it('replaces a unique exact match and shows the edited lines', async () => {
    const target = await fileReadInSession('a.ts', 'const a = 1\nconst b = 2\nconst c = 3\n')
    const result = await runTool(
      EditTool,
      { file_path: 'a.ts', old_string: 'const b = 2', new_string: 'const b = 20' },
      ctx,
    )
    expect(result.ok).toBe(true)
    expect(await readFile(target, 'utf8')).toBe('const a = 1\nconst b = 20\nconst c = 3\n')
    const text = EditTool.mapToolResult(okData(result)).content as string
    expect(text).toContain(`The file ${target} has been updated (1 replacement).`)
    expect(text).toContain('     2\tconst b = 20')
  })

  it('edits files above and below the synchronous bound alike, growing or shrinking them (docs/adr/0480)', async () => {
    const filler = `${'// filler line\n'.repeat(SYNC_IO_LIMIT / 15)}`
    const target = await fileReadInSession('big.ts', `const a = 1\n${filler}const z = 2\n`)
    const grown = await runTool(
      EditTool,
      { file_path: 'big.ts', old_string: 'const a = 1', new_string: 'const a = 10' },
      ctx,
    )
    expect(grown.ok).toBe(true)
    expect(await readFile(target, 'utf8')).toBe(`const a = 10\n${filler}const z = 2\n`)
    const shrunk = await runTool(EditTool, { file_path: 'big.ts', old_string: filler, new_string: '' }, ctx)
    expect(shrunk.ok).toBe(true)
    expect(await readFile(target, 'utf8')).toBe('const a = 10\nconst z = 2\n')
    const again = await runTool(EditTool, { file_path: 'big.ts', old_string: 'const z = 2', new_string: filler }, ctx)
    expect(again.ok).toBe(true)
    expect(await readFile(target, 'utf8')).toBe(`const a = 10\n${filler}\n`)
  })

  it('refuses several matches unless replace_all, and then replaces them all', async () => {
    const target = await fileReadInSession('b.txt', 'x\nx\nx\n')
    const refused = await runTool(EditTool, { file_path: 'b.txt', old_string: 'x', new_string: 'y' }, ctx)
    expect(refused).toMatchObject({
      ok: false,
      message: expect.stringContaining('Found 3 matches of the string to replace in b.txt, but replace_all is false'),
    })
    expect(refused.ok === false && refused.message).toContain('add surrounding lines')
    const result = await runTool(
      EditTool,
      { file_path: 'b.txt', old_string: 'x', new_string: 'y', replace_all: true },
      ctx,
    )
    expect(result.ok).toBe(true)
    expect(await readFile(target, 'utf8')).toBe('y\ny\ny\n')
  })

  it('explains a missing match', async () => {
    await fileReadInSession('c.txt', 'hello world\n')
    expect(await runTool(EditTool, { file_path: 'c.txt', old_string: 'goodbye', new_string: 'x' }, ctx)).toMatchObject({
      ok: false,
      message: expect.stringContaining('String to replace not found in c.txt'),
    })
  })

  it('refuses identical strings', async () => {
    await fileReadInSession('d.txt', 'same\n')
    expect(await runTool(EditTool, { file_path: 'd.txt', old_string: 'same', new_string: 'same' }, ctx)).toMatchObject({
      ok: false,
      message: 'No changes to make: old_string and new_string are exactly the same.',
    })
  })

  it('refuses a file not read in this session, and one changed since', async () => {
    await writeFile(path.join(workspace.cwd, 'e.txt'), 'content\n')
    expect(await runTool(EditTool, { file_path: 'e.txt', old_string: 'content', new_string: 'x' }, ctx)).toMatchObject({
      ok: false,
      message: expect.stringContaining('has not been read in this session'),
    })
    const target = await fileReadInSession('f.txt', 'content\n')
    await writeFile(target, 'content changed elsewhere\n')
    expect(await runTool(EditTool, { file_path: 'f.txt', old_string: 'content', new_string: 'x' }, ctx)).toMatchObject({
      ok: false,
      message: expect.stringContaining('Read it again'),
    })
  })

  it('reads the file again in the call: a change between validation and call is refused, even with size and time kept (docs/adr/0525, 0608)', async () => {
    const target = path.join(workspace.cwd, 'same-size.txt')
    // A whole second, which utimes sets back exactly.
    const mtime = new Date(1_700_000_000_000)
    writeFileSync(target, 'alpha beta\n')
    utimesSync(target, mtime, mtime)
    expect((await runTool(ReadTool, { file_path: 'same-size.txt' }, ctx)).ok).toBe(true)
    const input = { file_path: 'same-size.txt', old_string: 'alpha', new_string: 'gamma' }
    await nextTurn()
    expect(await EditTool.validateInput?.(input, ctx)).toEqual({ result: true })
    // In the same turn, as the service calls it: the same size, the time put back, and old_string
    // still there once: content the model never read, which the stats alone would let through.
    writeFileSync(target, 'alpha zeta\n')
    utimesSync(target, mtime, mtime)
    await expect(EditTool.call(input, ctx)).rejects.toThrow('was modified since it was last read')
    expect(readFileSync(target, 'utf8')).toBe('alpha zeta\n')
    // Grown since validation's read: refused the same way.
    await nextTurn()
    writeFileSync(target, 'alpha beta\n')
    utimesSync(target, mtime, mtime)
    expect(await EditTool.validateInput?.(input, ctx)).toEqual({ result: true })
    writeFileSync(target, 'alpha beta\nmore\n')
    await expect(EditTool.call(input, ctx)).rejects.toThrow('was modified since it was last read')
    expect(readFileSync(target, 'utf8')).toBe('alpha beta\nmore\n')
  })

  it('edits the object its validation named when a link takes its place in the same turn (docs/adr/0525)', async () => {
    const target = await fileReadInSession('named.txt', 'alpha\n')
    const elsewhere = path.join(workspace.cwd, 'elsewhere.txt')
    writeFileSync(elsewhere, 'alpha\n')
    const input = { file_path: 'named.txt', old_string: 'alpha', new_string: 'omega' }
    await nextTurn()
    expect(await EditTool.validateInput?.(input, ctx)).toEqual({ result: true })
    renameSync(target, path.join(workspace.cwd, 'moved.txt'))
    symlinkSync(elsewhere, target)
    await EditTool.call(input, ctx)
    expect(readFileSync(path.join(workspace.cwd, 'moved.txt'), 'utf8')).toBe('omega\n')
    expect(readFileSync(elsewhere, 'utf8')).toBe('alpha\n')
  })

  it('goes by path when the file named was removed, or the call comes in a later turn (docs/adr/0525)', async () => {
    const target = await fileReadInSession('removed.txt', 'alpha\n')
    const input = { file_path: 'removed.txt', old_string: 'alpha', new_string: 'omega' }
    await nextTurn()
    expect(await EditTool.validateInput?.(input, ctx)).toEqual({ result: true })
    unlinkSync(target)
    await expect(EditTool.call(input, ctx)).rejects.toThrow('File does not exist')
    const later = await fileReadInSession('later.txt', 'alpha\n')
    const laterInput = { file_path: 'later.txt', old_string: 'alpha', new_string: 'omega' }
    expect(await EditTool.validateInput?.(laterInput, ctx)).toEqual({ result: true })
    await nextTurn()
    await EditTool.call(laterInput, ctx)
    expect(readFileSync(later, 'utf8')).toBe('omega\n')
    // The record is the written file's: a second edit needs no Read in between.
    await EditTool.call({ ...laterInput, old_string: 'omega', new_string: 'alpha' }, ctx)
    expect(readFileSync(later, 'utf8')).toBe('alpha\n')
  })

  it('keeps $ patterns in new_string literal', async () => {
    const target = await fileReadInSession('g.txt', 'price\n')
    await runTool(EditTool, { file_path: 'g.txt', old_string: 'price', new_string: "$& $1 $$ $'" }, ctx)
    expect(await readFile(target, 'utf8')).toBe("$& $1 $$ $'\n")
  })

  it('matches \\n old_strings in a CRLF file and keeps its line ends', async () => {
    const target = await fileReadInSession('h.txt', 'one\r\ntwo\r\nthree\r\n')
    const result = await runTool(EditTool, { file_path: 'h.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' }, ctx)
    expect(result.ok).toBe(true)
    expect(await readFile(target, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n')
  })

  it('creates a new file from an empty old_string, but not over an existing one', async () => {
    expect((await runTool(EditTool, { file_path: 'new/file.txt', old_string: '', new_string: 'fresh' }, ctx)).ok).toBe(
      true,
    )
    expect(await readFile(path.join(workspace.cwd, 'new/file.txt'), 'utf8')).toBe('fresh')
    await fileReadInSession('full.txt', 'text')
    expect(await runTool(EditTool, { file_path: 'full.txt', old_string: '', new_string: 'x' }, ctx)).toMatchObject({
      ok: false,
      message: expect.stringContaining('already exists and is not empty'),
    })
  })

  it('refuses paths outside the working directories', async () => {
    expect(
      await runTool(EditTool, { file_path: '/etc/hostname', old_string: 'a', new_string: 'b' }, ctx),
    ).toMatchObject({
      ok: false,
      message: expect.stringContaining('outside the allowed working directories'),
    })
  })
})
