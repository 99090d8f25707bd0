// Pins the audit store on both backends (memory, and a real redis-server): newest first, tenant
// scoped, filters, pages without gaps or repeats, the record bound and the TTL; and the file sink:
// JSON lines, rotation at its size, a full disk that drops and counts without throwing, recovery.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuditFileSink } from '../../src/audit/audit-file-sink.js'
import { createAuditLog } from '../../src/audit/audit-log.js'
import type { AuditEntry, AuditStore } from '../../src/stores/audit-store.js'
import { createMemoryAuditStore } from '../../src/stores/memory/memory-audit-store.js'
import { createRedisAuditStore } from '../../src/stores/redis/redis-audit-store.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'

const entry = (tenant: string, index: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  ts: new Date().toISOString(),
  kind: index % 2 === 0 ? 'decision' : 'call',
  tenant,
  session_id: 'ses',
  run_id: `run-${index % 3}`,
  tool_use_id: `t${index}`,
  tool: 'Write',
  input_sha256: 'x'.repeat(64),
  ...extra,
})

function contract(name: string, make: (limits: { ttlMs: number; maxRecords: number }) => Promise<AuditStore>) {
  describe(name, () => {
    it('lists a tenant’s records newest first, filtered, page by page without gaps', async () => {
      const store = await make({ ttlMs: 60_000, maxRecords: 1000 })
      const tenant = `acme-${Math.random().toString(36).slice(2)}`
      await store.append(Array.from({ length: 25 }, (_, index) => entry(tenant, index)))
      await store.append([entry(`${tenant}-other`, 99)])
      const ids: string[] = []
      const tools: string[] = []
      let cursor: string | undefined
      do {
        const page = await store.list({ tenant, limit: 4, ...(cursor ? { cursor } : {}) })
        ids.push(...page.records.map((record) => record.id))
        tools.push(...page.records.map((record) => record.tool_use_id))
        cursor = page.next
      } while (cursor)
      expect(tools).toEqual(Array.from({ length: 25 }, (_, index) => `t${24 - index}`))
      expect(new Set(ids).size).toBe(25)
      const runZero = await store.list({ tenant, runId: 'run-0', kind: 'decision', limit: 100 })
      expect(runZero.records.map((record) => record.tool_use_id)).toEqual(['t24', 't18', 't12', 't6', 't0'])
      expect((await store.list({ tenant: `${tenant}-none`, limit: 10 })).records).toEqual([])
    })

    it('drops what is past the TTL', async () => {
      const store = await make({ ttlMs: 1000, maxRecords: 1000 })
      const tenant = `old-${Math.random().toString(36).slice(2)}`
      await store.append([entry(tenant, 1, { ts: new Date(Date.now() - 5000).toISOString() })])
      await store.append([entry(tenant, 2)])
      const listed = (await store.list({ tenant, limit: 10, after: Date.now() - 2000 })).records
      expect(listed.map((record) => record.tool_use_id)).toEqual(['t2'])
    })
  })
}

contract('memory audit store', async (limits) => createMemoryAuditStore(limits))

describe('memory audit store bound', () => {
  it('keeps at most maxRecords, dropping the oldest', async () => {
    const store = createMemoryAuditStore({ ttlMs: 60_000, maxRecords: 5 })
    await store.append(Array.from({ length: 8 }, (_, index) => entry('acme', index)))
    const listed = (await store.list({ tenant: 'acme', limit: 100 })).records
    expect(listed.map((record) => record.tool_use_id)).toEqual(['t7', 't6', 't5', 't4', 't3'])
  })
})

describe.skipIf(redisSkipReason !== undefined)('redis audit store', () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    server = await startRedisServer()
    redis = new Redis(server.url)
  })
  afterAll(async () => {
    redis?.disconnect()
    await server?.stop()
  })
  contract('contract', async (limits) => createRedisAuditStore({ redis, ...limits }))

  it('expires a tenant’s stream a TTL after its last record', async () => {
    const store = createRedisAuditStore({ redis, ttlMs: 60_000, maxRecords: 100 })
    await store.append([entry('ttl', 1)])
    const ttl = await redis.pttl('toolexec:audit:ttl')
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(60_000)
  })

  it('stores a batch as one entry per tenant, each record with its own id, after older entries', async () => {
    const store = createRedisAuditStore({ redis, ttlMs: 60_000, maxRecords: 100 })
    const tenant = `mixed-${Math.random().toString(36).slice(2)}`
    const key = `toolexec:audit:${tenant}`
    // Entries as written one record at a time before docs/adr/0510, then a batch.
    await redis.xadd(key, '*', 'r', JSON.stringify(entry(tenant, 0)))
    await redis.xadd(key, '*', 'r', JSON.stringify(entry(tenant, 1)))
    await store.append([entry(tenant, 2), entry(`${tenant}-b`, 3), entry(tenant, 4)])
    // A stream whose last id is ahead of the clock: the batch's records follow it.
    await redis.xadd(key, `${Date.now() + 3_600_000}-7`, 'r', JSON.stringify(entry(tenant, 5)))
    await store.append([entry(tenant, 6), entry(tenant, 7)])
    expect(await redis.xlen(key)).toBe(5)
    const records = (await store.list({ tenant, limit: 100 })).records
    expect(records.map((record) => record.tool_use_id)).toEqual(['t7', 't6', 't5', 't4', 't2', 't1', 't0'])
    const ids = records.map((record) => record.id)
    expect(new Set(ids).size).toBe(7)
    expect(ids.every((id) => /^\d+-\d+$/.test(id))).toBe(true)
    // Each id is a cursor: the page after it starts with the next older record.
    for (let index = 0; index < ids.length - 1; index++) {
      const next = await store.list({ tenant, limit: 1, cursor: ids[index]! })
      expect(next.records.map((record) => record.id)).toEqual([ids[index + 1]])
    }
    expect(
      (await store.list({ tenant: `${tenant}-b`, limit: 10 })).records.map((record) => record.tool_use_id),
    ).toEqual(['t3'])
  })

  it('keeps about the record bound per tenant, dropping whole entries from the oldest end', async () => {
    const store = createRedisAuditStore({ redis, ttlMs: 60_000, maxRecords: 10 })
    const tenant = `bound-${Math.random().toString(36).slice(2)}`
    for (let batch = 0; batch < 8; batch++) {
      await store.append(Array.from({ length: 3 }, (_, index) => entry(tenant, batch * 3 + index)))
    }
    const kept = (await store.list({ tenant, limit: 100 })).records.map((record) => record.tool_use_id)
    // 24 records in batches of 3, bound 10 with a step of 1: whole batches go, the newest stay.
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, index) => `t${23 - index}`))
    expect(kept.length).toBeGreaterThanOrEqual(9)
    expect(kept.length).toBeLessThanOrEqual(11)
    expect(Number(await redis.get(`toolexec:audit-held:${tenant}`))).toBe(kept.length)
  })

  it('follows the stream’s last id when the entry that had it is gone', async () => {
    const store = createRedisAuditStore({ redis, ttlMs: 60_000, maxRecords: 100 })
    const tenant = `deleted-${Math.random().toString(36).slice(2)}`
    const key = `toolexec:audit:${tenant}`
    await store.append([entry(tenant, 0)])
    const ahead = `${Date.now() + 3_600_000}-3`
    await redis.xadd(key, ahead, 'r', JSON.stringify(entry(tenant, 1)))
    await redis.xdel(key, ahead)
    await store.append([entry(tenant, 2), entry(tenant, 3)])
    const records = (await store.list({ tenant, limit: 10 })).records
    expect(records.map((record) => record.tool_use_id)).toEqual(['t3', 't2', 't0'])
    expect(records.slice(0, 2).map((record) => record.id)).toEqual([
      ahead.replace(/-3$/, '-5'),
      ahead.replace(/-3$/, '-4'),
    ])
  })

  it('recovers a record count that drifted above the stream (an older instance trimmed it)', async () => {
    const store = createRedisAuditStore({ redis, ttlMs: 60_000, maxRecords: 10 })
    const tenant = `drift-${Math.random().toString(36).slice(2)}`
    await store.append([entry(tenant, 0), entry(tenant, 1)])
    await redis.set(`toolexec:audit-held:${tenant}`, 1000)
    await store.append([entry(tenant, 2), entry(tenant, 3)])
    expect(Number(await redis.get(`toolexec:audit-held:${tenant}`))).toBe(2)
    await store.append([entry(tenant, 4)])
    const kept = (await store.list({ tenant, limit: 100 })).records.map((record) => record.tool_use_id)
    expect(kept).toEqual(['t4', 't3', 't2'])
  })
})

describe('the audit file sink', () => {
  let directory: string
  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'toolexec-audit-file-'))
  })
  afterAll(async () => rm(directory, { recursive: true, force: true }))

  it('writes JSON lines and rotates at its size, keeping `keep` old files', async () => {
    const file = path.join(directory, 'audit.jsonl')
    const sink = createAuditFileSink({ file, maxBytes: 300, keep: 2 })
    for (let index = 0; index < 12; index++) await sink.write([JSON.stringify(entry('acme', index))])
    await sink.close()
    const names = (await readdir(directory)).sort()
    expect(names).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2'])
    const lines = (await readFile(file, 'utf8')).trim().split('\n')
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ tool_use_id: 't11' })
    expect(sink.health).toMatchObject({ ok: true, written: 12, dropped: 0 })
  })

  it('never fails a caller on a full disk, counts what it dropped, and comes back', async () => {
    // /dev/full refuses every write with ENOSPC, as a full disk does.
    const full = createAuditFileSink({ file: '/dev/full', maxBytes: 1 << 30, keep: 1 })
    const log = createAuditLog({
      store: createMemoryAuditStore({ ttlMs: 60_000, maxRecords: 10 }),
      file: full,
      includeInputs: false,
    })
    log.record({ ...entry('acme', 1), input: { a: 1 } })
    await log.flush()
    expect(log.health().file).toMatchObject({ ok: false, dropped: 1, lastError: 'ENOSPC' })
    expect(log.health().store).toMatchObject({ ok: true, written: 1 })
    // A file where its directory should be: refused for any user, root included; then fixed.
    const blocked = path.join(directory, 'blocked')
    await writeFile(blocked, 'not a directory')
    const sink = createAuditFileSink({ file: path.join(blocked, 'audit.jsonl'), maxBytes: 1 << 20, keep: 1 })
    await sink.write(['{"a":1}'])
    expect(sink.health).toMatchObject({ ok: false, dropped: 1 })
    await rm(blocked)
    await sink.write(['{"a":2}'])
    expect(sink.health).toMatchObject({ ok: true, written: 1, dropped: 1 })
    expect(await readFile(path.join(blocked, 'audit.jsonl'), 'utf8')).toBe('{"a":2}\n')
    await sink.close()
  })
})
