// Pins Glob: newest first, absolute paths, the 100-file cap with its note, confinement of path and pattern.
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type GlobOutput, GlobTool } from '../../../src/tools/glob/glob-tool.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'

let workspace: TestWorkspace
beforeEach(async () => {
  workspace = await createTestWorkspace()
})
afterEach(() => workspace.cleanup())

const context = () => createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })

async function touch(relative: string, secondsAgo: number): Promise<string> {
  const target = path.join(workspace.cwd, relative)
  await mkdir(path.dirname(target), { recursive: true })
  await writeFile(target, relative)
  const time = new Date(Date.now() - secondsAgo * 1000)
  await utimes(target, time, time)
  return target
}

async function globText(input: object): Promise<string> {
  const result = await runTool(GlobTool, input, context())
  if (!result.ok) throw new Error(result.message)
  return GlobTool.mapToolResult(result.data as GlobOutput).content as string
}

describe('Glob', () => {
  it('lists matching files as absolute paths, most recently modified first', async () => {
    const old = await touch('src/old.ts', 300)
    const recent = await touch('src/deep/recent.ts', 10)
    const middle = await touch('middle.ts', 100)
    await touch('src/notes.md', 1)
    await touch('.hidden/x.ts', 200)
    expect(await globText({ pattern: '**/*.ts' })).toBe(
      [recent, middle, path.join(workspace.cwd, '.hidden/x.ts'), old].join('\n'),
    )
    expect(await globText({ pattern: '*.ts', path: 'src' })).toBe(old)
    expect(await globText({ pattern: '**/*.py' })).toBe('No files found')
  })

  it('caps the list at 100 with a note', async () => {
    await Promise.all(Array.from({ length: 105 }, (_, index) => touch(`many/f${index}.txt`, index)))
    const text = await globText({ pattern: 'many/*.txt' })
    expect(text.split('\n').filter((line) => line.endsWith('.txt'))).toHaveLength(100)
    expect(text.split('\n')[0]).toBe(path.join(workspace.cwd, 'many/f0.txt'))
    expect(text).toContain('showing the 100 most recently modified of 105 files')
  })

  it('refuses to search outside the working directories', async () => {
    expect(await runTool(GlobTool, { pattern: '*', path: workspace.outside }, context())).toMatchObject({
      ok: false,
      message: expect.stringContaining('outside the allowed working directories'),
    })
    expect(await runTool(GlobTool, { pattern: '../outside/*' }, context())).toMatchObject({
      ok: false,
      message: expect.stringContaining('must be relative and must not contain ".."'),
    })
    expect(await runTool(GlobTool, { pattern: '/etc/*' }, context())).toMatchObject({ ok: false })
  })

  it('does not follow a symlinked directory out of the workspace', async () => {
    await writeFile(path.join(workspace.outside, 'secret.ts'), 'x')
    await symlink(workspace.outside, path.join(workspace.cwd, 'escape'))
    expect(await globText({ pattern: '**/*.ts' })).toBe('No files found')
  })

  it('checks the start its pattern names: a link out is refused, a link inside and real subdirectories listed (docs/adr/0528)', async () => {
    await writeFile(path.join(workspace.outside, 'secret.ts'), 'x')
    await symlink(workspace.outside, path.join(workspace.cwd, 'escape'))
    expect(await globText({ pattern: 'escape/*.ts' })).toBe('No files found')
    await mkdir(path.join(workspace.cwd, 'real', 'sub', 'deeper'), { recursive: true })
    await writeFile(path.join(workspace.cwd, 'real', 'sub', 'deeper', 'kept.ts'), 'x')
    await symlink(path.join(workspace.cwd, 'real'), path.join(workspace.cwd, 'alias'))
    expect(await globText({ pattern: 'alias/sub/**/*.ts' })).toBe(path.join(workspace.cwd, 'alias/sub/deeper/kept.ts'))
    // A file in `real` first: its directory resolved, then `sub` and `deeper` confirmed by lstat.
    await writeFile(path.join(workspace.cwd, 'real', 'top.ts'), 'x')
    expect((await globText({ pattern: 'real/**/*.ts' })).split('\n').sort()).toEqual([
      path.join(workspace.cwd, 'real/sub/deeper/kept.ts'),
      path.join(workspace.cwd, 'real/top.ts'),
    ])
  })

  it('is read-only and concurrency-safe', () => {
    expect(GlobTool.isReadOnly()).toBe(true)
    expect(GlobTool.isConcurrencySafe()).toBe(true)
    expect(GlobTool.maxResultSizeChars).toBe(100_000)
  })
})
