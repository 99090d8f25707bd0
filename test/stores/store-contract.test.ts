// Pins the store contract on both implementations (memory and a real Redis), same cases:
// gap-free event subscriptions, tenant-scoped run copies, atomic idempotency claims, one run per
// session; then what each does about expiry (the memory sweep, Redis TTLs and the retained bound)
// and how Redis appends a burst of events (one script call, a refused batch redone in order).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { RunEvent } from '../../src/events/run-event.js'
import { createMemoryStores } from '../../src/stores/memory/open-memory-stores.js'
import { createRedisStores, type RedisStores } from '../../src/stores/redis/redis-stores.js'
import type { RunListPage, RunRecord } from '../../src/stores/run-store.js'
import type { SessionRecord } from '../../src/stores/session-store.js'
import { type Stores, sweepStores } from '../../src/stores/stores.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'

const run = (runId: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  runId,
  tenant: 'acme',
  sessionId: 'ses_1',
  mode: 'wait',
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'running',
  toolUseIds: [],
  results: [],
  blobs: [],
  ...extra,
})

const session = (sessionId: string, lastUsedAt: number): SessionRecord => ({
  sessionId,
  tenant: 'acme',
  createdAt: '2026-01-01T00:00:00.000Z',
  cwd: '/w',
  permissionContext: createPermissionContext(),
  readFileState: new Map(),
  todos: [],
  lastUsedAt,
})

const limits = { maxRetainedRuns: 2, sessionIdleTtlMs: 60_000 }
let redisServer: RedisServer | undefined
const opened: RedisStores[] = []
let unique = 0
/** Ids unique per test, so the cases share one Redis without seeing each other. */
const id = (name: string) => `${name}-${++unique}`

async function redisStores(extra: { maxRetainedRuns?: number; sessionIdleTtlMs?: number } = {}): Promise<RedisStores> {
  redisServer ??= await startRedisServer()
  const opened_ = createRedisStores({ url: redisServer.url, runTtlMs: 60_000, leaseMs: 1000, ...limits, ...extra })
  opened.push(opened_)
  return opened_
}

afterAll(async () => {
  for (const stores of opened) await stores.close()
  await redisServer?.stop()
})

const implementations: [string, () => Promise<Stores>, string | undefined][] = [
  ['memory', async () => createMemoryStores({ maxRetainedRuns: 10 }), undefined],
  ['redis', async () => (await redisStores()).stores, redisSkipReason],
]

describe.each(implementations)('%s stores', (_name, open, skipReason) => {
  let stores: Stores
  beforeAll(async () => {
    if (skipReason === undefined) stores = await open()
  })
  if (skipReason !== undefined) {
    it.skip(`skipped: ${skipReason}`, () => undefined)
    return
  }

  it('numbers events from 1 and replays after a seq', async () => {
    const r = id('r')
    const first = await stores.events.append(r, { type: 'run.started', tool_use_ids: [] })
    await stores.events.append(r, { type: 'run.completed', status: 'completed' })
    expect(first).toEqual({ type: 'run.started', tool_use_ids: [], seq: 1, run_id: r, ts: expect.any(String) })
    const all = await stores.events.read(r, 0)
    expect(all.map((event) => [event.seq, event.type, event.run_id])).toEqual([
      [1, 'run.started', r],
      [2, 'run.completed', r],
    ])
    expect(all[0]).toEqual(first)
    expect((await stores.events.read(r, 1)).map((event) => event.seq)).toEqual([2])
  })

  it('appends a batch in order after single appends, stamped like them, and tells listeners each event', async () => {
    const r = id('r')
    await stores.events.append(r, { type: 'tool.started', tool_use_id: 'a' })
    const seen: number[] = []
    const stop = await stores.events.subscribe(r, 0, (event) => seen.push(event.seq))
    const batch = await stores.events.appendBatch(r, [
      { type: 'tool.started', tool_use_id: 'b' },
      { type: 'tool.completed', tool_use_id: 'b', is_error: false, duration_ms: 1 },
      { type: 'run.completed', status: 'completed' },
    ])
    expect(batch.map((event) => [event.seq, event.type, event.run_id])).toEqual([
      [2, 'tool.started', r],
      [3, 'tool.completed', r],
      [4, 'run.completed', r],
    ])
    expect(batch.every((event) => !Number.isNaN(Date.parse(event.ts)))).toBe(true)
    await vi.waitFor(() => expect(seen).toEqual([1, 2, 3, 4]))
    stop()
    expect((await stores.events.read(r, 0)).map((event) => event.seq)).toEqual([1, 2, 3, 4])
  })

  it('delivers backlog then live events with no gap or duplicate, and isolates a throwing listener', async () => {
    const r = id('r')
    await stores.events.append(r, { type: 'tool.started', tool_use_id: 'a' })
    const seen: number[] = []
    await stores.events.subscribe(r, 0, () => {
      throw new Error('faulty subscriber')
    })
    const stop = await stores.events.subscribe(r, 0, (event: RunEvent) => seen.push(event.seq))
    expect(seen).toEqual([1])
    await stores.events.append(r, { type: 'tool.started', tool_use_id: 'b' })
    await vi.waitFor(() => expect(seen).toEqual([1, 2]))
    stop()
    await stores.events.append(r, { type: 'tool.started', tool_use_id: 'c' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(seen).toEqual([1, 2])
  })

  it('replays from a middle seq while appends race the subscription', async () => {
    const r = id('r')
    for (let index = 0; index < 5; index++)
      await stores.events.append(r, { type: 'tool.started', tool_use_id: `a${index}` })
    const seen: number[] = []
    const appends = Array.from({ length: 20 }, (_, index) =>
      stores.events.append(r, { type: 'tool.started', tool_use_id: `b${index}` }),
    )
    const stop = await stores.events.subscribe(r, 3, (event) => seen.push(event.seq))
    await Promise.all(appends)
    await vi.waitFor(() => expect(seen.at(-1)).toBe(25))
    stop()
    expect(seen).toEqual(Array.from({ length: 22 }, (_, index) => index + 4))
  })

  it('hides runs from other tenants and hands out copies', async () => {
    const r = id('r')
    await stores.runs.create(run(r))
    expect(await stores.runs.get('globex', r)).toBeUndefined()
    const copy = await stores.runs.get('acme', r)
    copy!.results.push({ type: 'tool_result', tool_use_id: 'x', content: 'tampered' })
    expect((await stores.runs.get('acme', r))!.results).toEqual([])
  })

  it('keeps tool_use ids, results and the completion of a run', async () => {
    const r = id('r')
    await stores.runs.create(run(r, { mode: 'stream', toolUseIds: ['a'], idempotencyKey: 'k' }))
    await stores.runs.appendToolUseId(r, 'b', 'Read')
    await stores.runs.appendResults(r, [{ type: 'tool_result', tool_use_id: 'a', content: 'one' }])
    expect((await stores.runs.get('acme', r))!.results).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'one' },
    ])
    const results = [
      { type: 'tool_result' as const, tool_use_id: 'a', content: 'one' },
      {
        type: 'tool_result' as const,
        tool_use_id: 'b',
        content: [{ type: 'text' as const, text: 'two' }],
        is_error: true as const,
      },
    ]
    await stores.runs.complete(r, {
      status: 'cancelled',
      results,
      blobs: [],
      finishedAt: '2026-01-01T00:00:01.000Z',
      expiresAt: Date.now() + 60_000,
      cancelReason: 'shutdown',
    })
    expect(await stores.runs.get('acme', r)).toEqual({
      tools: ['Read'],
      ...run(r, { mode: 'stream', idempotencyKey: 'k' }),
      status: 'cancelled',
      toolUseIds: ['a', 'b'],
      results,
      finishedAt: '2026-01-01T00:00:01.000Z',
      expiresAt: expect.any(Number),
      cancelReason: 'shutdown',
    })
  })

  it('pages runs created in the same millisecond by id, each once, whatever order they came in', async () => {
    const tenant = id('pager')
    const made = ['c', 'a', 'e', 'b', 'd'].map((letter) => `${tenant}-${letter}`)
    for (const runId of made) await stores.runs.create(run(runId, { tenant, createdAt: '2026-02-02T00:00:00.000Z' }))
    const listed: string[] = []
    let cursor: RunListPage['next']
    do {
      const page: RunListPage = await stores.runs.list({ tenant, limit: 2, ...(cursor ? { cursor } : {}) })
      listed.push(...page.records.map((record) => record.runId))
      cursor = page.next
    } while (cursor)
    expect(listed).toEqual([...made].sort().reverse())
  })

  it('marks a run stalled and clears the mark, and filters the list by it', async () => {
    const r = id('r')
    await stores.runs.create(run(r))
    await stores.runs.setStalled(r, '2026-01-01T00:00:05.000Z')
    expect((await stores.runs.get('acme', r))!.stalledSince).toBe('2026-01-01T00:00:05.000Z')
    const stalled = await stores.runs.list({ tenant: 'acme', stalled: true, limit: 200 })
    expect(stalled.records.map((record) => record.runId)).toContain(r)
    await stores.runs.setStalled(r, undefined)
    expect((await stores.runs.get('acme', r))!.stalledSince).toBeUndefined()
    const after = await stores.runs.list({ tenant: 'acme', stalled: true, limit: 200 })
    expect(after.records.map((record) => record.runId)).not.toContain(r)
    // A mark for a run that is gone does not bring it back.
    await stores.runs.setStalled(id('gone'), '2026-01-01T00:00:05.000Z')
    expect(await stores.runs.get('acme', id('gone'))).toBeUndefined()
  })

  it('lets exactly one of many concurrent claims win', async () => {
    const k = id('k')
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        stores.idempotency.claim('acme', k, { runId: `r${index}`, fingerprint: 'f' }),
      ),
    )
    expect(claims.filter((claim) => claim === null)).toHaveLength(1)
    const winner = `r${claims.indexOf(null)}`
    for (const claim of claims) if (claim !== null) expect(claim).toEqual({ runId: winner, fingerprint: 'f' })
    expect(await stores.idempotency.claim('globex', k, { runId: 'r3', fingerprint: 'f' })).toBeNull()
    await stores.idempotency.release('acme', k, 'other-run')
    expect(await stores.idempotency.claim('acme', k, { runId: 'r4', fingerprint: 'f' })).toEqual({
      runId: winner,
      fingerprint: 'f',
    })
    await stores.idempotency.release('acme', k, winner)
    expect(await stores.idempotency.claim('acme', k, { runId: 'r4', fingerprint: 'f' })).toBeNull()
  })

  it('keeps every field of a session record', async () => {
    // Required<…>: a field added to SessionRecord must be added here, and so round-trip on both
    // backends (the Redis store once dropped `toolsets`).
    const full: Required<SessionRecord> = {
      sessionId: id('s'),
      tenant: 'acme',
      createdAt: '2026-02-03T04:05:06.789Z',
      cwd: '/w/project',
      permissionContext: createPermissionContext({
        mode: 'acceptEdits',
        additionalWorkingDirectories: ['/w/shared'],
        alwaysAllowRules: { session: ['Bash(npm test:*)'] },
        alwaysDenyRules: { session: ['Read(.env)'] },
        alwaysAskRules: { session: ['Edit(package.json)'] },
        isBypassPermissionsModeAvailable: false,
        shouldAvoidPermissionPrompts: true,
      }),
      readFileState: new Map([['/w/project/a.txt', { mtimeMs: 12, size: 34, partial: true }]]),
      todos: [{ content: 'write tests', status: 'in_progress', activeForm: 'Writing tests' }],
      toolsets: ['anthropic_client'],
      textEditor: 'text_editor_20250124',
      lastUsedAt: 1234,
      activeRunId: 'run_holding',
    }
    await stores.sessions.create(full)
    expect(await stores.sessions.get('acme', full.sessionId)).toEqual(full)
  })

  it('keeps results held behind a running block until the run completes', async () => {
    const runId = id('r')
    await stores.runs.create(run(runId))
    await stores.runs.holdResult(runId, { type: 'tool_result', tool_use_id: 'b', content: 'done early' })
    expect(await stores.runs.heldResults(runId)).toEqual(
      new Map([['b', { type: 'tool_result', tool_use_id: 'b', content: 'done early' }]]),
    )
    await stores.runs.complete(runId, {
      status: 'lost',
      results: [],
      blobs: [],
      finishedAt: new Date(0).toISOString(),
      // Soon: the retained-runs bound is global in Redis, and this run must not outlive others' tests.
      expiresAt: Date.now() + 100,
    })
    expect((await stores.runs.heldResults(runId)).size).toBe(0)
  })

  it('counts open sessions per tenant and in all, and forgets deleted ones', async () => {
    const tenant = id('counted')
    const before = await stores.sessions.count(tenant, 0)
    const [a, b] = [id('s'), id('s')]
    await stores.sessions.create({ ...session(a, 0), tenant, lastUsedAt: Date.now() })
    await stores.sessions.create({ ...session(b, 0), tenant, lastUsedAt: Date.now() })
    const counted = await stores.sessions.count(tenant, Date.now())
    expect(counted.tenant).toBe(before.tenant + 2)
    expect(counted.total).toBeGreaterThanOrEqual(2)
    await stores.sessions.delete(tenant, a)
    expect((await stores.sessions.count(tenant, Date.now())).tenant).toBe(before.tenant + 1)
  })

  it('keeps an MCP session for its tenant only, counts it until it idles out, and ends it once', async () => {
    const mcp = id('mcp')
    const tenant = id('tenant')
    const record = {
      mcpSessionId: mcp,
      tenant,
      sessionId: 'ses_1',
      ownsSession: true,
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'c', version: '1' },
      clientCapabilities: { roots: {} },
    }
    const now = Date.now()
    await stores.mcpSessions.create(record, 60_000, now)
    expect(await stores.mcpSessions.touch(tenant, mcp, 60_000, now)).toEqual(record)
    expect(await stores.mcpSessions.touch('other', mcp, 60_000, now)).toBeUndefined()
    expect(await stores.mcpSessions.delete('other', mcp)).toBeUndefined()
    expect((await stores.mcpSessions.count(tenant, now)).tenant).toBe(1)
    // Counted by expiry: past its idle TTL it is no longer open.
    expect((await stores.mcpSessions.count(tenant, now + 120_000)).tenant).toBe(0)
    await stores.mcpSessions.create(record, 60_000, now)
    expect(await stores.mcpSessions.delete(tenant, mcp)).toEqual(record)
    expect(await stores.mcpSessions.delete(tenant, mcp)).toBeUndefined()
    expect(await stores.mcpSessions.touch(tenant, mcp, 60_000, now)).toBeUndefined()
  })

  it('holds a session for one run at a time and saves the state it hands back', async () => {
    const s = id('s')
    await stores.sessions.create(session(s, 0))
    expect(await stores.sessions.claim('acme', s, 'r1', 10)).toBe('claimed')
    expect(await stores.sessions.claim('acme', s, 'r2', 10)).toBe('busy')
    expect(await stores.sessions.claim('globex', s, 'r2', 10)).toBe('missing')
    const readFileState = new Map([['/w/a.txt', { mtimeMs: 1, size: 2, partial: false }]])
    await stores.sessions.release('acme', s, 'r2', { ...session(s, 0), cwd: '/w/wrong' }, 15)
    await stores.sessions.release('acme', s, 'r1', { ...session(s, 0), cwd: '/w/sub', readFileState }, 20)
    const saved = (await stores.sessions.get('acme', s))!
    expect(saved.cwd).toBe('/w/sub')
    expect(saved.readFileState).toEqual(readFileState)
    expect(saved.activeRunId).toBeUndefined()
    expect(await stores.sessions.claim('acme', s, 'r2', 30)).toBe('claimed')
    expect(await stores.sessions.delete('acme', s)).toBe(true)
    expect(await stores.sessions.get('acme', s)).toBeUndefined()
  })
})

describe('memory expiry', () => {
  it('sweeps expired runs and evicts the oldest finished ones beyond the bound, never running ones', async () => {
    const runs = createMemoryStores({ maxRetainedRuns: 2 }).runs
    await runs.create(run('old-running'))
    await runs.create(run('finished-1', { status: 'completed', expiresAt: 1000 }))
    await runs.create(run('finished-2', { status: 'completed', expiresAt: 5000 }))
    await runs.create(run('finished-3', { status: 'completed', expiresAt: 5000 }))
    const removed = await runs.sweep(2000)
    expect(removed.map((record) => record.runId)).toEqual(['finished-1', 'finished-2'])
    expect(await runs.get('acme', 'old-running')).toBeDefined()
    expect(await runs.get('acme', 'finished-3')).toBeDefined()
  })

  it('holds the bound at completion: the oldest finished runs go with their events and keys, never running ones', async () => {
    const stores = createMemoryStores({ maxRetainedRuns: 4 })
    const completion = { status: 'completed' as const, results: [], blobs: [], finishedAt: 'now', expiresAt: 9e15 }
    // The oldest run is still running: it may not go.
    await stores.runs.create(run('running'))
    for (let index = 0; index < 30; index++) {
      const runId = `short-${index}`
      await stores.runs.create(run(runId, { idempotencyKey: `key-${index}` }))
      await stores.idempotency.claim('acme', `key-${index}`, { runId, fingerprint: 'f' })
      await stores.events.append(runId, { type: 'run.completed', status: 'completed' })
      await stores.runs.complete(runId, completion)
    }
    // 32 runs: over the bound plus its slack (16), so the oldest finished went at completion.
    expect(await stores.runs.get('acme', 'running')).toBeDefined()
    expect(await stores.runs.get('acme', 'short-0')).toBeUndefined()
    expect(await stores.events.read('short-0', 0)).toEqual([])
    expect(await stores.idempotency.claim('acme', 'key-0', { runId: 'again', fingerprint: 'f' })).toBeNull()
    expect(await stores.runs.get('acme', 'short-29')).toBeDefined()
    expect((await stores.events.read('short-29', 0)).length).toBe(1)
  })

  it('never drops the run completing now, even when it is the oldest finished one', async () => {
    const runs = createMemoryStores({ maxRetainedRuns: 1 }).runs
    const completion = { status: 'completed' as const, results: [], blobs: [], finishedAt: 'now', expiresAt: 9e15 }
    await runs.create(run('first'))
    for (let index = 0; index < 17; index++) await runs.create(run(`other-${index}`))
    // 18 runs, over the bound plus slack: the only finished one is the one its caller reads next.
    await runs.complete('first', completion)
    expect((await runs.get('acme', 'first'))?.status).toBe('completed')
  })

  it('expires idle sessions but never one held by a run', async () => {
    const sessions = createMemoryStores({ maxRetainedRuns: 2 }).sessions
    await sessions.create(session('idle', 0))
    await sessions.create(session('busy', 0))
    await sessions.create(session('fresh', 900))
    await sessions.claim('acme', 'busy', 'r', 0)
    expect(await sessions.sweep(1000, 500)).toBe(1)
    expect(await sessions.get('acme', 'idle')).toBeUndefined()
    expect(await sessions.get('acme', 'busy')).toBeDefined()
    expect(await sessions.get('acme', 'fresh')).toBeDefined()
  })
})

describe('sweepStores', () => {
  it('takes an expired run with its events and idempotency key', async () => {
    const stores = createMemoryStores({ maxRetainedRuns: 100 })
    await stores.runs.create(run('r1', { status: 'completed', expiresAt: 10, idempotencyKey: 'k' }))
    await stores.events.append('r1', { type: 'run.completed', status: 'completed' })
    await stores.idempotency.claim('acme', 'k', { runId: 'r1', fingerprint: 'f' })
    expect(await sweepStores(stores, { maxRetainedRuns: 100, sessionIdleTtlMs: 1000 }, 20)).toEqual({
      runs: 1,
      sessions: 0,
    })
    expect(await stores.events.read('r1', 0)).toEqual([])
    expect(await stores.idempotency.claim('acme', 'k', { runId: 'r2', fingerprint: 'f' })).toBeNull()
  })
})

describe.skipIf(redisSkipReason !== undefined)('redis expiry and instances', () => {
  it('expires a finished run with its events and key by TTL, and evicts the oldest beyond the bound', async () => {
    const { stores, redis } = await redisStores({ maxRetainedRuns: 2 })
    const [r1, r2, r3] = [id('r'), id('r'), id('r')]
    for (const [r, at] of [
      [r1, 1000],
      [r2, 2000],
      [r3, 3000],
    ] as const) {
      await stores.runs.create(run(r, { idempotencyKey: `key-${r}` }))
      await stores.idempotency.claim('acme', `key-${r}`, { runId: r, fingerprint: 'f' })
      await stores.events.append(r, { type: 'run.completed', status: 'completed' })
      const expiresAt = Date.now() + at
      await stores.runs.complete(r, { status: 'completed', results: [], blobs: [], finishedAt: 'x', expiresAt })
    }
    // The bound is global (other tests' runs count too): r1, the oldest of these three, is gone.
    expect(await stores.runs.get('acme', r1)).toBeUndefined()
    expect(await stores.events.read(r1, 0)).toEqual([])
    const ttl = await redis.pttl(`toolexec:run:${r3}`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(3000)
    expect(await redis.pttl(`toolexec:events:${r3}`)).toBeGreaterThan(0)
    expect(await redis.pttl(`toolexec:idempotency:acme:key-${r3}`)).toBeGreaterThan(0)
    expect(await stores.runs.sweep(Date.now())).toEqual([])
  })

  it('expires an idle session by TTL, never one held by a run', async () => {
    const { stores, redis } = await redisStores({ sessionIdleTtlMs: 200 })
    const [idle, held] = [id('s'), id('s')]
    await stores.sessions.create(session(idle, Date.now()))
    await stores.sessions.create(session(held, Date.now()))
    expect(await stores.sessions.claim('acme', held, 'r', Date.now())).toBe('claimed')
    expect(await redis.pttl(`toolexec:session:acme:${held}`)).toBe(-1)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await stores.sessions.get('acme', idle)).toBeUndefined()
    expect(await stores.sessions.get('acme', held)).toBeDefined()
  })

  it('gives one of 50 claims spread over 5 instances the key, and one session claim of two', async () => {
    const instances = await Promise.all(Array.from({ length: 5 }, () => redisStores()))
    const k = id('k')
    const claims = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        instances[index % 5]!.stores.idempotency.claim('acme', k, { runId: `r${index}`, fingerprint: 'f' }),
      ),
    )
    expect(claims.filter((claim) => claim === null)).toHaveLength(1)
    const s = id('s')
    await instances[0]!.stores.sessions.create(session(s, 0))
    const sessionClaims = await Promise.all([
      instances[1]!.stores.sessions.claim('acme', s, 'r1', 1),
      instances[2]!.stores.sessions.claim('acme', s, 'r2', 1),
    ])
    expect(sessionClaims.sort()).toEqual(['busy', 'claimed'])
  })

  it('shows every event to a subscriber on another instance, and continues the seq across writers', async () => {
    const [writer, reader] = [await redisStores(), await redisStores()]
    const r = id('r')
    const seen: number[] = []
    await reader.stores.events.subscribe(r, 0, (event) => seen.push(event.seq))
    for (let index = 0; index < 10; index++)
      await writer.stores.events.append(r, { type: 'tool.started', tool_use_id: `t${index}` })
    await vi.waitFor(() => expect(seen).toHaveLength(10))
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    // A second instance appending after the first (a survivor closing a lost run) continues the seq.
    const closing = await reader.stores.events.append(r, { type: 'run.completed', status: 'completed' })
    expect(closing.seq).toBe(11)
    await expect(writer.stores.events.append(r, { type: 'tool.started', tool_use_id: 'late' })).resolves.toMatchObject({
      seq: 12,
    })
  })
  it('appends a burst of events in one script call, and redoes a burst refused for a taken seq in order', async () => {
    const [writer, other] = [await redisStores(), await redisStores()]
    const r = id('r')
    const evalCalls = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await writer.redis.info('commandstats'))?.[1] ?? 0)
    await writer.stores.events.append(r, { type: 'tool.started', tool_use_id: 't0' })
    const before = await evalCalls()
    const burst = await Promise.all(
      [1, 2, 3].map((index) => writer.stores.events.append(r, { type: 'tool.started', tool_use_id: `t${index}` })),
    )
    expect(burst.map((event) => event.seq)).toEqual([2, 3, 4])
    expect((await evalCalls()) - before).toBe(1)
    // Another writer takes seq 5: the writer's next burst (5, 6) is refused whole, then redone after it.
    await other.stores.events.append(r, { type: 'tool.started', tool_use_id: 'other' })
    const redone = await Promise.all(
      [5, 6].map((index) => writer.stores.events.append(r, { type: 'tool.started', tool_use_id: `t${index}` })),
    )
    expect(redone.map((event) => event.seq)).toEqual([6, 7])
    const stored = await writer.stores.events.read(r, 0)
    expect(stored.map((event) => [event.seq, (event as { tool_use_id?: string }).tool_use_id])).toEqual([
      [1, 't0'],
      [2, 't1'],
      [3, 't2'],
      [4, 't3'],
      [5, 'other'],
      [6, 't5'],
      [7, 't6'],
    ])
  })
})
