// Pins docs/adr/0603: a context's working directories are listed once per turn and access, and
// made afresh in a later turn, for another context, or once the context names other directories.
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { realWorkingDirectories, WorkingDirectoryEscapeError } from '../../src/paths/working-directories.js'

describe('working directories listed once per turn', () => {
  let temp: string
  let root: string
  beforeAll(async () => {
    temp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-turn-lists-')))
    root = path.join(temp, 'root')
    await mkdir(path.join(root, 'a'), { recursive: true })
    await mkdir(path.join(root, 'b'))
    await mkdir(path.join(temp, 'outside'))
  })
  afterAll(() => rm(temp, { recursive: true, force: true }))

  const contextOf = (cwd: string, additional: string[] = []) => ({
    cwd,
    permissionContext: { additionalWorkingDirectories: additional },
    environment: { blobDirectory: path.join(root, 'b'), workspaceRoot: root },
  })

  it('gives the same list to a second ask of the same turn, one per access', async () => {
    const context = contextOf(path.join(root, 'a'))
    const first = await realWorkingDirectories(context, 'write')
    const again = await realWorkingDirectories(context, 'write')
    const read = await realWorkingDirectories(context, 'read')
    expect(again).toBe(first)
    expect(first).toEqual([path.join(root, 'a')])
    expect(read).toEqual([path.join(root, 'a'), path.join(root, 'b')])
    expect(await realWorkingDirectories(context, 'read')).toBe(read)
  })

  it('lists another context, or a context that names other directories now, afresh in the same turn', async () => {
    const context = contextOf(path.join(root, 'a'))
    const first = await realWorkingDirectories(context, 'write')
    expect(await realWorkingDirectories(contextOf(root), 'write')).toEqual([root])
    // The context's fields are readonly to the service; changed in place anyway, they still count.
    const changed = context as { cwd: string; permissionContext: { additionalWorkingDirectories: string[] } }
    changed.permissionContext = { additionalWorkingDirectories: [path.join(root, 'b')] }
    expect(await realWorkingDirectories(context, 'write')).toEqual([path.join(root, 'a'), path.join(root, 'b')])
    changed.cwd = path.join(root, 'b')
    expect(await realWorkingDirectories(context, 'write')).toEqual([path.join(root, 'b'), path.join(root, 'b')])
    expect(first).toEqual([path.join(root, 'a')])
  })

  it('makes the list again in a later turn: a directory replaced by a link since then refuses the call', async () => {
    const granted = path.join(root, 'granted')
    await mkdir(granted)
    const context = contextOf(path.join(root, 'a'), [granted])
    const first = await realWorkingDirectories(context, 'write')
    expect(first).toEqual([path.join(root, 'a'), granted])
    await new Promise((resolve) => setImmediate(resolve))
    const later = await realWorkingDirectories(context, 'write')
    expect(later).toEqual(first)
    expect(later).not.toBe(first)
    await rm(granted, { recursive: true })
    await symlink(path.join(temp, 'outside'), granted)
    await expect(realWorkingDirectories(context, 'write')).rejects.toBeInstanceOf(WorkingDirectoryEscapeError)
  })
})
