// Pins docs/adr/0462: a call opens the path its validation resolved (the one the permission
// rules saw), a link retargeted in between does not redirect it, an input changed in place is
// resolved again, and a working directory swapped for a link in between still refuses the call.
import { mkdir, readFile, rename, symlink, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { EditTool } from '../../../src/tools/edit/edit-tool.js'
import { GlobTool } from '../../../src/tools/glob/glob-tool.js'
import { ReadTool } from '../../../src/tools/read/read-tool.js'
import { createTestContext, useTestWorkspace } from '../../helpers/tool-context.js'

async function setUp() {
  const workspace = await useTestWorkspace()
  const context = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
  await writeFile(path.join(workspace.cwd, 'seen.txt'), 'the file the rules saw\n')
  await writeFile(path.join(workspace.cwd, 'other.txt'), 'another file\n')
  await symlink('seen.txt', path.join(workspace.cwd, 'link.txt'))
  return { workspace, context }
}

async function retarget(workspace: { cwd: string }, target: string) {
  await unlink(path.join(workspace.cwd, 'link.txt'))
  await symlink(target, path.join(workspace.cwd, 'link.txt'))
}

describe('a call opens the path its validation resolved', () => {
  it('Read: a link retargeted after validation still reads the file validated', async () => {
    const { workspace, context } = await setUp()
    const input = { file_path: 'link.txt' }
    expect(await ReadTool.validateInput?.(input, context)).toEqual({ result: true })
    await retarget(workspace, 'other.txt')
    const result = await ReadTool.call(input, context)
    expect(result.data).toMatchObject({ filePath: path.join(workspace.cwd, 'seen.txt') })
    expect(JSON.stringify(result.data)).toContain('the file the rules saw')
  })

  it('Read: an input whose path changed in place after validation is resolved again', async () => {
    const { workspace, context } = await setUp()
    const input = { file_path: 'link.txt' }
    expect(await ReadTool.validateInput?.(input, context)).toEqual({ result: true })
    input.file_path = 'other.txt'
    const result = await ReadTool.call(input, context)
    expect(result.data).toMatchObject({ filePath: path.join(workspace.cwd, 'other.txt') })
  })

  it('Read: a working directory swapped for a link after validation refuses the call', async () => {
    const { workspace, context } = await setUp()
    const input = { file_path: path.join(workspace.cwd, 'seen.txt') }
    expect(await ReadTool.validateInput?.(input, context)).toEqual({ result: true })
    await mkdir(path.join(workspace.outside, 'copy'))
    await writeFile(path.join(workspace.outside, 'copy', 'seen.txt'), 'outside\n')
    await rename(workspace.cwd, `${workspace.cwd}.moved`)
    await symlink(path.join(workspace.outside, 'copy'), workspace.cwd)
    await expect(ReadTool.call(input, context)).rejects.toThrow(/changed while it was being opened/)
  })

  it('Edit: a link retargeted after validation edits the file validated', async () => {
    const { workspace, context } = await setUp()
    await ReadTool.call({ file_path: 'seen.txt' }, context)
    const input = { file_path: 'link.txt', old_string: 'rules saw', new_string: 'rules approved' }
    expect(await EditTool.validateInput?.(input, context)).toEqual({ result: true })
    await retarget(workspace, 'other.txt')
    await EditTool.call(input, context)
    expect(await readFile(path.join(workspace.cwd, 'seen.txt'), 'utf8')).toBe('the file the rules approved\n')
    expect(await readFile(path.join(workspace.cwd, 'other.txt'), 'utf8')).toBe('another file\n')
  })

  it('Glob: lists the directory validated, and nothing a swapped link leads to', async () => {
    const { workspace, context } = await setUp()
    await mkdir(path.join(workspace.cwd, 'dir'))
    await writeFile(path.join(workspace.cwd, 'dir', 'inside.md'), '')
    await writeFile(path.join(workspace.outside, 'outside.md'), '')
    const input = { pattern: '*.md', path: 'dir' }
    expect(await GlobTool.validateInput?.(input, context)).toEqual({ result: true })
    await rename(path.join(workspace.cwd, 'dir'), path.join(workspace.cwd, 'dir.moved'))
    await symlink(workspace.outside, path.join(workspace.cwd, 'dir'))
    const result = await GlobTool.call(input, context)
    expect(result.data).toMatchObject({ filenames: [], totalFound: 0 })
  })
})
