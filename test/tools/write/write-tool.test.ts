// Pins Write: creates files and parents, refuses unread or changed files, stays inside the working directories.
import { readFile, symlink, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ReadTool } from '../../../src/tools/read/read-tool.js'
import { WriteTool } from '../../../src/tools/write/write-tool.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { okData, runTool } from '../helpers.js'

let workspace: TestWorkspace
beforeEach(async () => {
  workspace = await createTestWorkspace()
})
afterEach(() => workspace.cleanup())

const context = () => createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })

describe('Write', () => {
  it('creates a new file with its parent directories and records it as read', async () => {
    const ctx = context()
    const result = await runTool(WriteTool, { file_path: 'deep/dir/new.txt', content: 'hello' }, ctx)
    expect(result.ok).toBe(true)
    const target = path.join(workspace.cwd, 'deep/dir/new.txt')
    expect(await readFile(target, 'utf8')).toBe('hello')
    expect(WriteTool.mapToolResult(okData(result)).content).toBe(`File created successfully at: ${target}`)
    expect(ctx.readFileState.get(target)).toMatchObject({ size: 5, partial: false })
    // Written by this session: it may be overwritten without another Read.
    expect((await runTool(WriteTool, { file_path: 'deep/dir/new.txt', content: 'again' }, ctx)).ok).toBe(true)
  })

  it('refuses to overwrite a file that was not read in this session', async () => {
    await writeFile(path.join(workspace.cwd, 'existing.txt'), 'old')
    const result = await runTool(WriteTool, { file_path: 'existing.txt', content: 'new' }, context())
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringContaining('has not been read in this session. Read it first'),
    })
    expect(await readFile(path.join(workspace.cwd, 'existing.txt'), 'utf8')).toBe('old')
  })

  it('refuses a file changed since it was read, then works after reading again', async () => {
    const target = path.join(workspace.cwd, 'existing.txt')
    await writeFile(target, 'old')
    const ctx = context()
    expect((await runTool(ReadTool, { file_path: 'existing.txt' }, ctx)).ok).toBe(true)
    await writeFile(target, 'changed by someone else')
    await utimes(target, new Date(), new Date(Date.now() + 5_000))
    const refused = await runTool(WriteTool, { file_path: 'existing.txt', content: 'new' }, ctx)
    expect(refused).toMatchObject({
      ok: false,
      message: expect.stringContaining('was modified since it was last read'),
    })
    expect((await runTool(ReadTool, { file_path: 'existing.txt' }, ctx)).ok).toBe(true)
    expect((await runTool(WriteTool, { file_path: 'existing.txt', content: 'new' }, ctx)).ok).toBe(true)
    expect(await readFile(target, 'utf8')).toBe('new')
  })

  it('refuses paths outside the working directories, through symlinked parents too, and the blob directory', async () => {
    const ctx = context()
    expect(await runTool(WriteTool, { file_path: '../outside/x.txt', content: 'x' }, ctx)).toMatchObject({
      ok: false,
      message: expect.stringContaining('outside the allowed working directories'),
    })
    await symlink(workspace.outside, path.join(workspace.cwd, 'out'))
    expect((await runTool(WriteTool, { file_path: 'out/sub/x.txt', content: 'x' }, ctx)).ok).toBe(false)
    const blobPath = path.join(ctx.environment.blobDirectory, 'run-1-z.txt')
    expect(await runTool(WriteTool, { file_path: blobPath, content: 'x' }, ctx)).toMatchObject({
      ok: false,
      message: expect.stringContaining('read-only directory'),
    })
  })

  it('refuses a directory as target', async () => {
    expect(await runTool(WriteTool, { file_path: '.', content: 'x' }, context())).toMatchObject({
      ok: false,
      message: expect.stringContaining('is a directory'),
    })
  })

  it('is not read-only', () => {
    expect(WriteTool.isReadOnly({ file_path: 'a', content: '' })).toBe(false)
    expect(WriteTool.isConcurrencySafe({ file_path: 'a', content: '' })).toBe(false)
  })
})
