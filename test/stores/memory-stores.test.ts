// Pins the in-memory stores behind the store interfaces: gap-free event subscriptions, bounded and
// expiring runs, atomic idempotency claims, one run per session, and the sweep that ties them.
import { describe, expect, it } from 'vitest'
import type { RunEvent } from '../../src/events/run-event.js'
import { createMemoryEventStore } from '../../src/stores/memory-event-store.js'
import { createMemoryIdempotencyStore } from '../../src/stores/memory-idempotency-store.js'
import { createMemoryRunStore } from '../../src/stores/memory-run-store.js'
import { createMemorySessionStore } from '../../src/stores/memory-session-store.js'
import type { RunRecord } from '../../src/stores/run-store.js'
import type { SessionRecord } from '../../src/stores/session-store.js'
import { createMemoryStores, sweepStores } from '../../src/stores/stores.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'

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

describe('memory event store', () => {
  it('numbers events from 1 and replays after a seq', async () => {
    const events = createMemoryEventStore(() => new Date('2026-01-01T00:00:00Z'))
    await events.append('r', { type: 'run.started', tool_use_ids: [] })
    await events.append('r', { type: 'run.completed', status: 'completed' })
    expect(await events.read('r', 0)).toEqual([
      { type: 'run.started', tool_use_ids: [], seq: 1, run_id: 'r', ts: '2026-01-01T00:00:00.000Z' },
      { type: 'run.completed', status: 'completed', seq: 2, run_id: 'r', ts: '2026-01-01T00:00:00.000Z' },
    ])
    expect((await events.read('r', 1)).map((event) => event.seq)).toEqual([2])
  })

  it('delivers backlog then live events with no gap or duplicate, and isolates a throwing listener', async () => {
    const events = createMemoryEventStore()
    await events.append('r', { type: 'tool.started', tool_use_id: 'a' })
    const seen: number[] = []
    await events.subscribe('r', 0, () => {
      throw new Error('faulty subscriber')
    })
    const stop = await events.subscribe('r', 0, (event: RunEvent) => seen.push(event.seq))
    await events.append('r', { type: 'tool.started', tool_use_id: 'b' })
    stop()
    await events.append('r', { type: 'tool.started', tool_use_id: 'c' })
    expect(seen).toEqual([1, 2])
  })
})

describe('memory run store', () => {
  it('hides runs from other tenants and hands out copies', async () => {
    const runs = createMemoryRunStore({ maxRetainedRuns: 10 })
    await runs.create(run('r1'))
    expect(await runs.get('globex', 'r1')).toBeUndefined()
    const copy = await runs.get('acme', 'r1')
    copy!.results.push({ type: 'tool_result', tool_use_id: 'x', content: 'tampered' })
    expect((await runs.get('acme', 'r1'))!.results).toEqual([])
  })

  it('sweeps expired runs and evicts the oldest finished ones beyond the bound, never running ones', async () => {
    const runs = createMemoryRunStore({ maxRetainedRuns: 2 })
    await runs.create(run('old-running'))
    await runs.create(run('finished-1', { status: 'completed', expiresAt: 1000 }))
    await runs.create(run('finished-2', { status: 'completed', expiresAt: 5000 }))
    await runs.create(run('finished-3', { status: 'completed', expiresAt: 5000 }))
    const removed = await runs.sweep(2000)
    expect(removed.map((record) => record.runId)).toEqual(['finished-1', 'finished-2'])
    expect(await runs.get('acme', 'old-running')).toBeDefined()
    expect(await runs.get('acme', 'finished-3')).toBeDefined()
  })
})

describe('memory idempotency store', () => {
  it('lets exactly one of two concurrent claims win', async () => {
    const keys = createMemoryIdempotencyStore()
    const [first, second] = await Promise.all([
      keys.claim('acme', 'k', { runId: 'r1', fingerprint: 'f' }),
      keys.claim('acme', 'k', { runId: 'r2', fingerprint: 'f' }),
    ])
    expect(first).toBeNull()
    expect(second).toEqual({ runId: 'r1', fingerprint: 'f' })
    expect(await keys.claim('globex', 'k', { runId: 'r3', fingerprint: 'f' })).toBeNull()
    await keys.release('acme', 'k', 'other-run')
    expect(await keys.claim('acme', 'k', { runId: 'r4', fingerprint: 'f' })).toEqual({ runId: 'r1', fingerprint: 'f' })
    await keys.release('acme', 'k', 'r1')
    expect(await keys.claim('acme', 'k', { runId: 'r4', fingerprint: 'f' })).toBeNull()
  })
})

describe('memory session store', () => {
  it('holds a session for one run at a time and saves the state it hands back', async () => {
    const sessions = createMemorySessionStore()
    await sessions.create(session('s', 0))
    expect(await sessions.claim('acme', 's', 'r1', 10)).toBe('claimed')
    expect(await sessions.claim('acme', 's', 'r2', 10)).toBe('busy')
    expect(await sessions.claim('globex', 's', 'r2', 10)).toBe('missing')
    await sessions.release('acme', 's', 'r1', { ...session('s', 0), cwd: '/w/sub' }, 20)
    expect((await sessions.get('acme', 's'))!.cwd).toBe('/w/sub')
    expect(await sessions.claim('acme', 's', 'r2', 30)).toBe('claimed')
  })

  it('expires idle sessions but never one held by a run', async () => {
    const sessions = createMemorySessionStore()
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
