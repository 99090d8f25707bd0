// Pins the shared-volume marker (docs/adr/0113, docs/adr/0607-a-volume-marker-appears-whole.md):
// instances starting at the same moment on one fresh volume all read the one id that got there,
// never an empty one, and leave nothing else behind.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { VOLUME_MARKER, volumeMarker } from '../../src/stores/redis/volume-marker.js'

describe('volumeMarker', () => {
  let temp: string
  beforeEach(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), 'toolexec-volume-'))
  })
  afterEach(() => rm(temp, { recursive: true, force: true }))

  it('gives instances marking one fresh volume at once the same whole id', async () => {
    for (let volume = 0; volume < 20; volume++) {
      const directory = path.join(temp, `volume-${volume}`)
      const ids = await Promise.all(Array.from({ length: 8 }, () => volumeMarker(directory)))
      expect(ids[0]).toMatch(/^vol_[0-9a-f-]{36}$/)
      expect(new Set(ids)).toEqual(new Set([ids[0]]))
      expect(await readdir(directory)).toEqual([VOLUME_MARKER])
    }
  })

  it('never shows a marker without its id, to a reader polling as it is made', async () => {
    // Another thread reads each volume's marker as fast as it can while this one makes them:
    // an exclusive create followed by a write shows it empty in between.
    const files = Array.from({ length: 50 }, (_unused, volume) => path.join(temp, `volume-${volume}`, VOLUME_MARKER))
    const poller = new Worker(
      `const { readFileSync } = require('node:fs')
       const { parentPort, workerData } = require('node:worker_threads')
       const seen = new Set()
       let stop = false
       parentPort.on('message', () => { stop = true })
       const poll = () => {
         for (let round = 0; round < 2000 && !stop; round++) {
           for (const file of workerData) {
             try { seen.add(readFileSync(file, 'utf8')) } catch {}
           }
         }
         if (stop) parentPort.postMessage([...seen])
         else setImmediate(poll)
       }
       poll()`,
      { eval: true, workerData: files },
    )
    for (const file of files) await volumeMarker(path.dirname(file))
    poller.postMessage('stop')
    const seen = await new Promise<string[]>((resolve) => poller.once('message', resolve))
    await poller.terminate()
    expect(seen.length).toBeGreaterThan(0)
    for (const text of seen) expect(text).toMatch(/^vol_[0-9a-f-]{36}\n$/)
  })

  it('makes the marker by an exclusive create on a volume without hard links', async () => {
    const noLinks = async () => {
      throw Object.assign(new Error('function not implemented'), { code: 'ENOSYS' })
    }
    const id = await volumeMarker(temp, noLinks)
    expect(id).toMatch(/^vol_[0-9a-f-]{36}$/)
    expect(await volumeMarker(temp, noLinks)).toBe(id)
    expect(await readdir(temp)).toEqual([VOLUME_MARKER])
  })

  it('keeps the marker a volume already has', async () => {
    await writeFile(path.join(temp, VOLUME_MARKER), 'vol_marked-before\n')
    expect(await volumeMarker(temp)).toBe('vol_marked-before')
    expect(await readdir(temp)).toEqual([VOLUME_MARKER])
  })
})
