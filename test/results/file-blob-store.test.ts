// Pins the file blob store: exclusive create with reuse, tenant isolation, id validation, streams, TTL sweeping.
import { stat as fsStat, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFileBlobStore, type FileBlobStore } from '../../src/results/file-blob-store.js'

const TTL_MS = 60_000

let root: string
let store: FileBlobStore

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'toolexec-blobs-'))
  store = createFileBlobStore({ root, ttlMs: TTL_MS })
})

afterEach(async () => {
  store.close()
  await rm(root, { recursive: true, force: true })
})

async function endStream(stream: NodeJS.WritableStream, chunks: string[]): Promise<void> {
  for (const chunk of chunks) stream.write(chunk)
  await new Promise<void>((resolve) => stream.end(resolve))
}

describe('write', () => {
  it('stores the content under <root>/<tenant>/<blobId> and reports its byte size', async () => {
    const ref = await store.write('acme', 'run1-toolu_1.txt', 'héllo')
    expect(ref).toEqual({ blobId: 'run1-toolu_1.txt', path: path.join(root, 'acme', 'run1-toolu_1.txt'), size: 6 })
    expect(await readFile(ref.path, 'utf8')).toBe('héllo')
  })

  it('never overwrites: a second write of the same id returns the first file', async () => {
    const first = await store.write('acme', 'a.txt', 'first content')
    const second = await store.write('acme', 'a.txt', 'second, longer content')
    expect(second).toEqual(first)
    expect(await readFile(first.path, 'utf8')).toBe('first content')
  })

  it('concurrent writes of one id agree on the first writer and leave one intact file', async () => {
    const big = 'x'.repeat(2_000_000)
    const [first, second] = await Promise.all([store.write('acme', 'c.txt', big), store.write('acme', 'c.txt', 'tiny')])
    expect(first.size).toBe(big.length)
    expect(second.size).toBe(big.length)
    expect((await fsStat(first.path)).size).toBe(big.length)
  })

  it.each([
    '../escape.txt',
    'sub/dir.txt',
    'a..b.txt',
    '.hidden.txt',
    'noext',
    'script.sh',
    '',
    `${'a'.repeat(200)}.txt`,
  ])('rejects blob id %j', async (blobId) => {
    await expect(store.write('acme', blobId, 'x')).rejects.toThrow(/Invalid blob id/)
  })

  it.each(['', '../other', 'a/b', 'x'.repeat(65), 'dot.ted'])('rejects tenant %j', async (tenant) => {
    await expect(store.write(tenant, 'a.txt', 'x')).rejects.toThrow(/Invalid tenant/)
    expect(() => store.directory(tenant)).toThrow(/Invalid tenant/)
  })

  it('refuses a constructor without a positive ttl', () => {
    expect(() => createFileBlobStore({ root, ttlMs: 0 })).toThrow(/ttlMs/)
  })
})

describe('stat and tenant isolation', () => {
  it('finds a tenant’s own blob and not another tenant’s', async () => {
    const ref = await store.write('acme', 'shared-name.json', '{}')
    expect(await store.stat('acme', 'shared-name.json')).toEqual(ref)
    expect(await store.stat('globex', 'shared-name.json')).toBeNull()
  })

  it('returns null for traversal and malformed ids instead of touching the file system', async () => {
    await store.write('acme', 'secret.txt', 'acme only')
    expect(await store.stat('globex', '../acme/secret.txt')).toBeNull()
    expect(await store.stat('globex', '..')).toBeNull()
    expect(await store.stat('globex', 'secret')).toBeNull()
    expect(await store.stat('acme', 'missing.txt')).toBeNull()
  })

  it('does not treat a symlink in the tenant directory as a blob', async () => {
    const target = path.join(root, 'outside.txt')
    await writeFile(target, 'outside')
    await symlink(target, path.join(store.directory('acme'), 'link.txt'))
    expect(await store.stat('acme', 'link.txt')).toBeNull()
    await expect(store.write('acme', 'link.txt', 'x')).rejects.toThrow(/not a readable file/)
    expect(await readFile(target, 'utf8')).toBe('outside')
  })

  it('directory() creates and returns the tenant directory', async () => {
    const directory = store.directory('acme')
    expect(directory).toBe(path.join(root, 'acme'))
    expect((await fsStat(directory)).isDirectory()).toBe(true)
  })
})

describe('openWriteStream', () => {
  it('streams into a new blob and resolves with its size once closed', async () => {
    const blob = await store.openWriteStream('acme', 'spill.txt')
    await endStream(blob.stream, ['abc', 'déf'])
    const ref = await blob.finished
    expect(ref).toEqual({ blobId: 'spill.txt', path: path.join(root, 'acme', 'spill.txt'), size: 7 })
    expect(await readFile(ref.path, 'utf8')).toBe('abcdéf')
  })

  it('is exclusive: an existing id keeps its content and the stream’s bytes are discarded', async () => {
    const first = await store.write('acme', 'spill.txt', 'original')
    const blob = await store.openWriteStream('acme', 'spill.txt')
    await endStream(blob.stream, ['replacement that must not land'])
    expect(await blob.finished).toEqual(first)
    expect(await readFile(first.path, 'utf8')).toBe('original')
  })

  it('removes the partial file when the stream is destroyed before finishing', async () => {
    const blob = await store.openWriteStream('acme', 'broken.txt')
    blob.stream.write('partial')
    blob.stream.destroy(new Error('producer died'))
    await expect(blob.finished).rejects.toThrow('producer died')
    expect(await store.stat('acme', 'broken.txt')).toBeNull()
  })

  it('rejects invalid ids', async () => {
    await expect(store.openWriteStream('acme', '../x.txt')).rejects.toThrow(/Invalid blob id/)
  })
})

describe('sweep', () => {
  async function age(filePath: string, ageMs: number): Promise<void> {
    const when = new Date(Date.now() - ageMs)
    await utimes(filePath, when, when)
  }

  it('deletes only blobs older than the TTL, across tenants', async () => {
    const old = await store.write('acme', 'old.txt', 'old')
    const fresh = await store.write('acme', 'fresh.txt', 'fresh')
    const otherOld = await store.write('globex', 'old.json', '[]')
    await age(old.path, TTL_MS + 5_000)
    await age(otherOld.path, TTL_MS + 5_000)
    await age(fresh.path, TTL_MS - 5_000)

    expect(await store.sweep()).toBe(2)
    expect(await store.stat('acme', 'old.txt')).toBeNull()
    expect(await store.stat('globex', 'old.json')).toBeNull()
    expect(await store.stat('acme', 'fresh.txt')).toEqual(fresh)
  })

  it('uses the injected clock and leaves files it did not write alone', async () => {
    let clock = Date.now()
    const clocked = createFileBlobStore({ root, ttlMs: TTL_MS, now: () => clock })
    await clocked.write('acme', 'a.txt', 'a')
    await writeFile(path.join(root, 'acme', 'notes.md'), 'operator file')
    expect(await clocked.sweep()).toBe(0)
    clock += TTL_MS + 1_000
    expect(await clocked.sweep()).toBe(1)
    expect(await readFile(path.join(root, 'acme', 'notes.md'), 'utf8')).toBe('operator file')
  })

  it('returns 0 when the root does not exist yet', async () => {
    const empty = createFileBlobStore({ root: path.join(root, 'never-created'), ttlMs: TTL_MS })
    expect(await empty.sweep()).toBe(0)
  })

  it('startSweeper validates its interval and close() stops it', () => {
    expect(() => store.startSweeper(0)).toThrow(/intervalMs/)
    store.startSweeper(60_000)
    store.close()
    store.close()
  })
})
