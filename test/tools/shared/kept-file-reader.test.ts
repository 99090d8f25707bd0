// Pins docs/adr/0565: the dirty counts' files are read from descriptors kept open, each read one
// pread from offset 0 that sees the file as it is now. Run on temporary regular files (which a
// pread from 0 reads afresh as procfs does) and on /proc/self, counting this process's descriptors.
import { readdirSync } from 'node:fs'
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { keptFileReader } from '../../../src/tools/shared/kept-file-reader.js'

const openDescriptors = () => readdirSync('/proc/self/fd').length

describe('keptFileReader', () => {
  let directory: string
  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'kept-reader-'))
  })
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true })
  })

  it('reads the file as it is at each read, through one descriptor kept open', async () => {
    const file = path.join(directory, 'counts')
    await writeFile(file, 'nr_dirty 1\n')
    const read = keptFileReader()
    expect(await read(file)).toBe('nr_dirty 1\n')
    const before = openDescriptors()
    for (let index = 2; index < 12; index++) {
      await writeFile(file, `nr_dirty ${index}\n`)
      expect(await read(file)).toBe(`nr_dirty ${index}\n`)
    }
    expect(openDescriptors()).toBe(before)
  })

  it('reads a kernel file from the start at every read', async () => {
    const read = keptFileReader()
    const first = await read('/proc/self/stat')
    const second = await read('/proc/self/stat')
    expect(second.split(' ')[0]).toBe(String(process.pid))
    expect(first.split(' ')[0]).toBe(String(process.pid))
  })

  it('a file larger than the first read is read whole', async () => {
    const file = path.join(directory, 'large')
    const text = 'x'.repeat(100_000)
    await writeFile(file, text)
    const read = keptFileReader()
    expect(await read(file)).toBe(text)
    expect(await read(file)).toBe(text)
  })

  it('first reads of one file at once keep one descriptor', async () => {
    const file = path.join(directory, 'counts')
    await writeFile(file, 'a\n')
    const read = keptFileReader()
    const before = openDescriptors()
    expect(await Promise.all([read(file), read(file), read(file)])).toEqual(['a\n', 'a\n', 'a\n'])
    expect(openDescriptors()).toBe(before + 1)
  })

  it('a missing file rejects and keeps nothing open', async () => {
    const read = keptFileReader()
    const before = openDescriptors()
    await expect(read(path.join(directory, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' })
    expect(openDescriptors()).toBe(before)
  })

  it('past sixteen files every descriptor is closed and the set starts over', async () => {
    const read = keptFileReader()
    const before = openDescriptors()
    for (let index = 0; index < 40; index++) {
      const file = path.join(directory, `file-${index}`)
      await writeFile(file, `${index}\n`)
      expect(await read(file)).toBe(`${index}\n`)
      await unlink(file)
    }
    expect(openDescriptors() - before).toBeLessThanOrEqual(16)
  })
})
