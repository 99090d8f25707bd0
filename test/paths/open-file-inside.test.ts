// Pins the one-step open of an existing file (docs/adr/0468-a-checked-file-opens-in-one-step.md)
// on a real file system: what was checked is what is opened, a link swapped in on the way or in
// the file's place is refused, and a missing file still takes the walk that makes it.
import { closeSync, constants, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openFileInsideSync, PathChangedError } from '../../src/paths/open-inside.js'
import { readDescriptorAndClose } from '../helpers/read-descriptor.js'

describe.runIf(process.platform === 'linux')('openFileInsideSync', () => {
  let temp: string
  let root: string
  let outside: string
  beforeEach(async () => {
    temp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-open-')))
    root = path.join(temp, 'root')
    outside = path.join(temp, 'outside')
    await mkdir(path.join(root, 'sub'), { recursive: true })
    await mkdir(outside)
    await writeFile(path.join(root, 'sub', 'file.txt'), 'inside\n')
    await writeFile(path.join(outside, 'file.txt'), 'secret\n')
  })
  afterEach(() => rm(temp, { recursive: true, force: true }))

  it('opens the checked file itself, for reading and for writing', () => {
    const target = path.join(root, 'sub', 'file.txt')
    expect(readDescriptorAndClose(openFileInsideSync([root], target, constants.O_RDONLY) as number)).toBe('inside\n')
    expect(
      readDescriptorAndClose(openFileInsideSync([root], target, constants.O_RDWR | constants.O_CREAT) as number),
    ).toBe('inside\n')
  })

  it('refuses a path whose directory was swapped for a link after the check', async () => {
    const target = path.join(root, 'sub', 'file.txt')
    await rename(path.join(root, 'sub'), path.join(root, 'sub-moved'))
    await symlink(outside, path.join(root, 'sub'))
    expect(() => openFileInsideSync([root], target, constants.O_RDONLY)).toThrow(PathChangedError)
    expect(() => openFileInsideSync([root], target, constants.O_RDWR)).toThrow(PathChangedError)
    expect(readFileSync(path.join(outside, 'file.txt'), 'utf8')).toBe('secret\n')
  })

  it('refuses a link put in the file’s place, even one pointing inside', async () => {
    const target = path.join(root, 'sub', 'file.txt')
    await rm(target)
    await symlink(path.join(outside, 'file.txt'), target)
    expect(() => openFileInsideSync([root], target, constants.O_RDONLY)).toThrow(PathChangedError)
    await rm(target)
    await writeFile(path.join(root, 'other.txt'), 'other\n')
    await symlink(path.join(root, 'other.txt'), target)
    expect(() => openFileInsideSync([root], target, constants.O_RDWR)).toThrow(PathChangedError)
  })

  it('makes a missing file and its directories through the walk, and O_EXCL still refuses an existing one', async () => {
    const target = path.join(root, 'new', 'deeper', 'file.txt')
    const flags = constants.O_RDWR | constants.O_CREAT
    closeSync(openFileInsideSync([root], target, flags, { createParents: true }) as number)
    expect(await readFile(target, 'utf8')).toBe('')
    expect(() => openFileInsideSync([root], target, flags | constants.O_EXCL)).toThrow(/EEXIST/)
  })
})
