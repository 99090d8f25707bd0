// Pins the prepared /etc copy (docs/adr/0384-the-sandbox-etc-is-one-prepared-directory.md): the
// listed entries and nothing else, links kept as links, modes kept, a change copied again.

import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEtcSnapshots } from '../../../src/tools/bash/etc-snapshot.js'

describe('createEtcSnapshots', () => {
  let root: string
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'etc-snapshot-test-'))
    await writeFile(path.join(root, 'passwd'), 'root:x:0:0::/root:/bin/sh\n')
    await chmod(path.join(root, 'passwd'), 0o640)
    await writeFile(path.join(root, 'shadow'), 'secret')
    await mkdir(path.join(root, 'ssl', 'certs'), { recursive: true })
    await mkdir(path.join(root, 'ssl', 'private'))
    await writeFile(path.join(root, 'ssl', 'private', 'key.pem'), 'private key')
    await writeFile(path.join(root, 'ssl', 'certs', 'bundle.crt'), 'certs')
    await symlink('bundle.crt', path.join(root, 'ssl', 'certs', 'abcd.0'))
    await symlink('/usr/share/zoneinfo/Etc/UTC', path.join(root, 'localtime'))
  })
  const made: ReturnType<typeof createEtcSnapshots>[] = []
  afterEach(async () => {
    for (const snapshots of made.splice(0)) snapshots.dispose()
    await rm(root, { recursive: true, force: true })
  })
  const create = () => {
    const snapshots = createEtcSnapshots(entries(), root)
    made.push(snapshots)
    return snapshots
  }

  const entries = () => ['passwd', 'ssl/certs', 'localtime', 'hosts'].map((entry) => path.join(root, entry))

  it('copies the listed entries that exist and nothing else, links as links, modes kept', async () => {
    const copy = create().current() as string
    expect((await readdir(copy)).sort()).toEqual(['localtime', 'passwd', 'ssl'])
    expect(await readdir(path.join(copy, 'ssl'))).toEqual(['certs'])
    expect((await readdir(path.join(copy, 'ssl', 'certs'))).sort()).toEqual(['abcd.0', 'bundle.crt'])
    expect(await readlink(path.join(copy, 'ssl', 'certs', 'abcd.0'))).toBe('bundle.crt')
    expect(await readlink(path.join(copy, 'localtime'))).toBe('/usr/share/zoneinfo/Etc/UTC')
    expect(await readFile(path.join(copy, 'passwd'), 'utf8')).toBe('root:x:0:0::/root:/bin/sh\n')
    expect((await stat(path.join(copy, 'passwd'))).mode & 0o777).toBe(0o640)
  })

  it('keeps the copy while nothing changed, and copies again when an entry changes, appears or goes', async () => {
    const snapshots = create()
    const first = snapshots.current() as string
    expect(snapshots.current()).toBe(first)

    await writeFile(path.join(root, 'ssl', 'certs', 'bundle.crt'), 'new certs, longer')
    const second = snapshots.current() as string
    expect(second).not.toBe(first)
    expect(await readFile(path.join(second, 'ssl', 'certs', 'bundle.crt'), 'utf8')).toBe('new certs, longer')

    await writeFile(path.join(root, 'hosts'), '127.0.0.1 localhost\n')
    const third = snapshots.current() as string
    expect(third).not.toBe(second)
    expect(await readFile(path.join(third, 'hosts'), 'utf8')).toBe('127.0.0.1 localhost\n')

    await unlink(path.join(root, 'ssl', 'certs', 'abcd.0'))
    const fourth = snapshots.current() as string
    expect(fourth).not.toBe(third)
    expect(await readdir(path.join(fourth, 'ssl', 'certs'))).toEqual(['bundle.crt'])
  })

  it('is undefined when the copy cannot be made, and tries again only after the wait', async () => {
    const tmp = process.env.TMPDIR
    const retried = createEtcSnapshots(entries(), root, 0)
    const waiting = createEtcSnapshots(entries(), root, 60_000)
    made.push(retried, waiting)
    process.env.TMPDIR = path.join(root, 'missing-tmp')
    try {
      expect(retried.current()).toBeUndefined()
      expect(waiting.current()).toBeUndefined()
    } finally {
      process.env.TMPDIR = tmp
      if (tmp === undefined) delete process.env.TMPDIR
    }
    expect(retried.current()).toEqual(expect.any(String))
    expect(waiting.current()).toBeUndefined()
  })

  it('copies again when a file of the copy went (a /tmp cleaner)', async () => {
    const snapshots = create()
    const first = snapshots.current() as string
    await rm(path.join(first, 'passwd'))
    const second = snapshots.current() as string
    expect(second).not.toBe(first)
    expect(await readFile(path.join(second, 'passwd'), 'utf8')).toContain('root')
  })
})
