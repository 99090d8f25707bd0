// Pins a file named by its descriptor (docs/adr/0522-a-read-names-its-file-once.md) on a real file
// system: the name is the kernel's real path, the reopen reads the very object named whatever its
// path has become, only within the turn it was named in, and never anything but a regular file;
// an Edit's call reopens it for writing, its validation reads it again first (docs/adr/0525).
import { constants, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { nameExistingFile, openNamedFile, readNamedFileAgain } from '../../src/paths/named-file.js'
import { readDescriptorAndClose } from '../helpers/read-descriptor.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe.runIf(process.platform === 'linux')('nameExistingFile', () => {
  let temp: string
  beforeEach(async () => {
    temp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-named-')))
    await mkdir(path.join(temp, 'real'))
    await writeFile(path.join(temp, 'real', 'file.txt'), 'named\n')
    await symlink(path.join(temp, 'real'), path.join(temp, 'link'))
  })
  afterEach(() => rm(temp, { recursive: true, force: true }))

  it('names the real path through links, with the object’s stats, and reads it', () => {
    const named = nameExistingFile(path.join(temp, 'link', 'file.txt'))
    expect(named?.realPath).toBe(path.join(temp, 'real', 'file.txt'))
    expect(named?.stats.isFile()).toBe(true)
    const fd = named && openNamedFile(named, constants.O_RDONLY)
    expect(readDescriptorAndClose(fd as number)).toBe('named\n')
    // Taken once: a second open of the same name falls back to the caller's checked open.
    expect(named && openNamedFile(named, constants.O_RDONLY)).toBeUndefined()
  })

  it('reopens the object named, even after a link was put in its place (in the same turn)', () => {
    const file = path.join(temp, 'real', 'file.txt')
    const named = nameExistingFile(file)
    writeFileSync(path.join(temp, 'secret.txt'), 'secret\n')
    renameSync(file, path.join(temp, 'real', 'moved.txt'))
    symlinkSync(path.join(temp, 'secret.txt'), file)
    const fd = named && openNamedFile(named, constants.O_RDONLY)
    expect(readDescriptorAndClose(fd as number)).toBe('named\n')
  })

  it('is not reopened in a later turn: the caller opens by path again', async () => {
    const named = nameExistingFile(path.join(temp, 'real', 'file.txt'))
    expect(named).toBeDefined()
    await nextTurn()
    expect(named && openNamedFile(named, constants.O_RDONLY)).toBeUndefined()
  })

  it('names a directory without opening it for reading, and nothing that is missing', () => {
    const named = nameExistingFile(path.join(temp, 'link'))
    expect(named?.realPath).toBe(path.join(temp, 'real'))
    expect(named?.stats.isDirectory()).toBe(true)
    expect(named && openNamedFile(named, constants.O_RDONLY)).toBeUndefined()
    expect(nameExistingFile(path.join(temp, 'missing.txt'))).toBeUndefined()
  })

  it('is reopened for writing as the object named, never truncated or created (docs/adr/0525)', () => {
    const file = path.join(temp, 'real', 'file.txt')
    const named = nameExistingFile(file)
    const fd = named && openNamedFile(named, constants.O_RDWR | constants.O_TRUNC | constants.O_CREAT)
    expect(readDescriptorAndClose(fd as number)).toBe('named\n')
    const directory = nameExistingFile(path.join(temp, 'real'))
    expect(directory && openNamedFile(directory, constants.O_RDWR)).toBeUndefined()
  })

  it('is read again without being taken, within its turn only (docs/adr/0525)', async () => {
    const named = nameExistingFile(path.join(temp, 'real', 'file.txt'))
    const again = named && readNamedFileAgain(named)
    expect(readDescriptorAndClose(again as number)).toBe('named\n')
    const fd = named && openNamedFile(named, constants.O_RDONLY)
    expect(readDescriptorAndClose(fd as number)).toBe('named\n')
    expect(named && readNamedFileAgain(named)).toBeUndefined()
    const later = nameExistingFile(path.join(temp, 'real', 'file.txt'))
    await nextTurn()
    expect(later && readNamedFileAgain(later)).toBeUndefined()
  })
})
