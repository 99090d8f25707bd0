// Pins RunManager.subscribe at the end of a run: a late subscriber gets the backlog then the end,
// `after` at or past the last seq ends at once with nothing, and backlog and live events meet with
// no duplicate and no gap.
import { describe, expect, it } from 'vitest'
import type { RunEvent } from '../../src/events/run-event.js'
import { createRunExecutor } from '../../src/executor/run-executor.js'
import { createFileBlobStore } from '../../src/results/file-blob-store.js'
import { createRunManager } from '../../src/runs/run-manager.js'
import { prepareRunInput } from '../../src/runs/run-request.js'
import { createSessionService } from '../../src/sessions/session-service.js'
import { createMemoryStores } from '../../src/stores/memory/open-memory-stores.js'
import { createTestTools } from '../helpers/test-tools.js'
import { useTestWorkspace } from '../helpers/tool-context.js'

const TENANT = 'default'

async function createManager() {
  const workspace = await useTestWorkspace()
  const stores = createMemoryStores({ maxRetainedRuns: 100 })
  const blobs = createFileBlobStore({ root: workspace.blobRoot, ttlMs: 60_000 })
  const sessions = createSessionService({
    store: stores.sessions,
    blobs,
    operator: undefined,
    workspaceOf: () => workspace.cwd,
    environmentOf: (tenant) => ({
      sandbox: 'off',
      multiTenant: false,
      blobDirectory: blobs.directory(tenant),
      workspaceRoot: workspace.cwd,
    }),
    idleTtlMs: 60_000,
  })
  const tools = createTestTools()
  const manager = createRunManager({
    stores,
    sessions,
    toolsFor: () => tools.tools,
    createExecutor: createRunExecutor,
    limits: { maxToolUseConcurrency: 10, maxResultChars: 200_000, permissionTimeoutMs: 0, runTtlMs: 60_000 },
  })
  const start = (toolUses: Array<{ id: string; name: string; input: unknown }>) =>
    manager.start({
      tenant: TENANT,
      mode: 'async',
      input: prepareRunInput(
        { tool_uses: toolUses.map((block) => ({ type: 'tool_use' as const, ...block })) },
        { maxBlocksPerRun: 100, maxInputBytes: 1_000_000 },
      ),
      options: {},
    })
  return { manager, tools, start }
}

/** Subscribes and records what arrives and whether (and when) `onEnd` was called. */
async function record(manager: ReturnType<typeof createRunManager>, runId: string, afterSeq: number) {
  const events: RunEvent[] = []
  const ends: number[] = []
  const stop = await manager.subscribe(
    TENANT,
    runId,
    afterSeq,
    (event) => events.push(event),
    () => ends.push(events.length),
  )
  return { events, ends, stop }
}

async function finishedRun() {
  const setup = await createManager()
  const handle = await setup.start([{ id: 'a', name: 'Echo', input: { text: 'hi' } }])
  await handle.finished
  const all = await record(setup.manager, handle.runId, 0)
  all.stop()
  return { ...setup, runId: handle.runId, all: all.events }
}

const seqs = (events: RunEvent[]) => events.map((event) => event.seq)

describe('RunManager.subscribe after the run ended', () => {
  it('delivers the whole backlog in seq order, ending with run.completed, and nothing else', async () => {
    const { all } = await finishedRun()
    expect(seqs(all)).toEqual(all.map((_event, index) => index + 1))
    expect(all[0]?.type).toBe('run.started')
    expect(all.at(-1)?.type).toBe('run.completed')
    expect(all.filter((event) => event.type === 'run.completed')).toHaveLength(1)
  })

  it('delivers only what follows `after` when `after` is before the last seq', async () => {
    const { manager, runId, all } = await finishedRun()
    const last = all.at(-1)!.seq
    const tail = await record(manager, runId, last - 1)
    expect(tail.events).toEqual([all.at(-1)])
    // It got run.completed itself: `onEnd` is for subscribers that will never see it.
    expect(tail.ends).toEqual([])
  })

  it('ends at once with nothing when `after` is the last seq (a reconnect that had run.completed)', async () => {
    const { manager, runId, all } = await finishedRun()
    const atEnd = await record(manager, runId, all.at(-1)!.seq)
    expect(atEnd.events).toEqual([])
    expect(atEnd.ends).toEqual([0])
  })

  it('ends at once with nothing when `after` lies past the last seq', async () => {
    const { manager, runId, all } = await finishedRun()
    const past = await record(manager, runId, all.at(-1)!.seq + 5)
    expect(past.events).toEqual([])
    expect(past.ends).toEqual([0])
  })

  it("refuses another tenant's run", async () => {
    const { manager, runId } = await finishedRun()
    await expect(manager.subscribe('other', runId, 0, () => {})).rejects.toMatchObject({ code: 'run_not_found' })
  })
})

describe('RunManager.subscribe while the run goes on', () => {
  it.each([0, 1])('joins backlog and live events after seq %i with no duplicate and no gap', async (afterSeq) => {
    const { manager, tools, start } = await createManager()
    const handle = await start([
      { id: 'a', name: 'Gate', input: { key: 'a' } },
      { id: 'b', name: 'Echo', input: { text: 'b' } },
    ])
    await tools.started('a')
    const subscriber = await record(manager, handle.runId, afterSeq)
    const backlog = subscriber.events.length
    expect(backlog).toBeGreaterThan(0)
    tools.open('a')
    await handle.finished
    const last = subscriber.events.at(-1)!
    expect(last.type).toBe('run.completed')
    expect(seqs(subscriber.events)).toEqual(
      Array.from({ length: last.seq - afterSeq }, (_value, index) => afterSeq + index + 1),
    )
    expect(subscriber.events.length).toBeGreaterThan(backlog)
    expect(subscriber.ends).toEqual([])
  })
})
