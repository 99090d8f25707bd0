// Pins a file named by its descriptor (docs/adr/0522-a-read-names-its-file-once.md) on a real file
// system: the name is the kernel's real path, the reopen reads the very object named whatever its
// path has become, only within the turn it was named in, and never anything but a regular file;
// an Edit's call reopens it for writing, its validation reads it again first (docs/adr/0525),
// through a descriptor kept for the call to write through (docs/adr/0606).
import {
  chmodSync,
  closeSync,
  constants,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  keepForTheCall,
  type NamedFile,
  nameExistingFile,
  openNamedFile,
  type ReopenedFile,
  readNamedFileAgain,
  takeKeptRead,
} from '../../src/paths/named-file.js'
import { readDescriptorAndClose } from '../helpers/read-descriptor.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/** The file's content as a validation read it, kept with its descriptor. */
const CONTENT = Buffer.from('named\n')

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
    expect(again?.writable).toBe(true)
    expect(readDescriptorAndClose(again?.fd as number)).toBe('named\n')
    const fd = named && openNamedFile(named, constants.O_RDONLY)
    expect(readDescriptorAndClose(fd as number)).toBe('named\n')
    expect(named && readNamedFileAgain(named)).toBeUndefined()
    const later = nameExistingFile(path.join(temp, 'real', 'file.txt'))
    await nextTurn()
    expect(later && readNamedFileAgain(later)).toBeUndefined()
  })

  it('gives the call for writing the descriptor its validation kept, the very one (docs/adr/0606)', () => {
    const file = path.join(temp, 'real', 'file.txt')
    const named = nameExistingFile(file) as NamedFile
    const again = readNamedFileAgain(named) as ReopenedFile
    expect(keepForTheCall(named, again, CONTENT)).toBe(true)
    // Kept once: a second descriptor is the caller's to close.
    const second = readNamedFileAgain(named) as ReopenedFile
    expect(keepForTheCall(named, second, CONTENT)).toBe(false)
    closeSync(second.fd)
    // Its offset moved by two bytes: a descriptor opened again would read from the start.
    readSync(again.fd, Buffer.alloc(2), 0, 2, null)
    const fd = takeKeptRead(named)?.fd as number
    const rest = Buffer.alloc(16)
    expect(rest.toString('utf8', 0, readSync(fd, rest, 0, 16, null))).toBe('med\n')
    writeSync(fd, 'NAMED\n', 0)
    closeSync(fd)
    expect(readFileSync(file, 'utf8')).toBe('NAMED\n')
  })

  it('hands the call what its validation read, once, with the name closed (docs/adr/0608)', () => {
    const file = path.join(temp, 'real', 'file.txt')
    const named = nameExistingFile(file) as NamedFile
    expect(takeKeptRead(named)).toBeUndefined()
    const again = readNamedFileAgain(named) as ReopenedFile
    expect(keepForTheCall(named, again, CONTENT)).toBe(true)
    const kept = takeKeptRead(named)
    expect(kept).toEqual({ fd: again.fd, content: CONTENT })
    expect(descriptorNames(named.fd, file)).toBe(false)
    // Taken: neither a second take nor an open finds it.
    expect(takeKeptRead(named)).toBeUndefined()
    expect(openNamedFile(named, constants.O_RDWR)).toBeUndefined()
    expect(descriptorNames(again.fd, file)).toBe(true)
    closeSync(again.fd)
  })

  it('closes a kept descriptor the call did not take, at its turn’s end or when the name is opened (docs/adr/0606, 0608)', async () => {
    const file = path.join(temp, 'real', 'file.txt')
    const named = nameExistingFile(file) as NamedFile
    const kept = readNamedFileAgain(named) as ReopenedFile
    expect(keepForTheCall(named, kept, CONTENT)).toBe(true)
    await nextTurn()
    expect(descriptorNames(kept.fd, file)).toBe(false)
    expect(openNamedFile(named, constants.O_RDWR)).toBeUndefined()

    const read = nameExistingFile(file) as NamedFile
    const keptForRead = readNamedFileAgain(read) as ReopenedFile
    expect(keepForTheCall(read, keptForRead, CONTENT)).toBe(true)
    const readOnly = openNamedFile(read, constants.O_RDONLY) as number
    // A descriptor of its own, opened as asked: not the kept read-write one.
    expect(() => writeSync(readOnly, 'x', 0)).toThrow(/EBADF/)
    expect(readDescriptorAndClose(readOnly)).toBe('named\n')
    expect(descriptorNames(keptForRead.fd, file)).toBe(false)

    // Opened for writing, it is a descriptor of its own as well: only takeKeptRead hands on the kept one.
    const write = nameExistingFile(file) as NamedFile
    const keptForWrite = readNamedFileAgain(write) as ReopenedFile
    expect(keepForTheCall(write, keptForWrite, CONTENT)).toBe(true)
    readSync(keptForWrite.fd, Buffer.alloc(2), 0, 2, null)
    const own = openNamedFile(write, constants.O_RDWR) as number
    // Read from its own offset: the kept one's was moved by two bytes.
    const start = Buffer.alloc(16)
    expect(start.toString('utf8', 0, readSync(own, start, 0, 16, null))).toBe('named\n')
    closeSync(own)
    expect(takeKeptRead(write)).toBeUndefined()
  })

  it('is read through a read-only descriptor, never kept, when it cannot be opened for writing (docs/adr/0606)', async () => {
    // Opened for reading only, by a process that may not write it (root may write any mode).
    const file = path.join(temp, 'real', 'file.txt')
    chmodSync(file, 0o444)
    const named = nameExistingFile(file) as NamedFile
    const again = readNamedFileAgain(named) as ReopenedFile
    expect(readDescriptorAndClose(again.fd)).toBe('named\n')
    if (process.getuid?.() === 0) return
    expect(again.writable).toBe(false)
    expect(keepForTheCall(named, again, CONTENT)).toBe(false)
  })
})

/** Whether `fd` is open on `file` now: false once closed (its number free, or reused for another file). */
function descriptorNames(fd: number, file: string): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === file
  } catch {
    return false
  }
}
