// Pins what the SDK's own EnvironmentWorker (the reference worker) does with scripted sessions against the
// protocol double. It is the check that the double is faithful: the worker gets through a session with no
// refused send and no request the double does not know. It also records what the reference worker does on
// the hard paths (asks, denials, an interrupt mid-call, a redelivery, a lost heartbeat, a stop); where it
// misbehaves, the test asserts what it actually does and names the upstream issue.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type ManagedAgentsDouble,
  type ProbeTools,
  probeTools,
  type ReferenceWorker,
  type ScriptedSession,
  startManagedAgentsDouble,
  startReferenceWorker,
} from '../helpers/managed-agents/index.js'

let double: ManagedAgentsDouble
let environment: { id: string; key: string }
let probes: ProbeTools
let worker: ReferenceWorker | undefined
let workdir: string

beforeEach(async () => {
  // A 6 s lease: the worker beats every 3 s (half the TTL), and the tests waiting on a beat wait that long
  // at most. Leases lapse only when a test says so: a slow host never lapses one by accident.
  double = await startManagedAgentsDouble({ leaseTtlSeconds: 6, leasesLapse: false })
  environment = double.createEnvironment()
  probes = probeTools()
  workdir = mkdtempSync(path.join(tmpdir(), 'ma-reference-'))
})
afterEach(async () => {
  probes.openGate()
  await worker?.stop()
  worker = undefined
  await double.close()
  rmSync(workdir, { recursive: true, force: true })
})

function start(tools = probes.tools): ReferenceWorker {
  worker = startReferenceWorker(double, { environment, workdir, tools })
  return worker
}

function textOf(session: ScriptedSession, toolUseId: string): string[] {
  return session.resultsFor(toolUseId).flatMap((attempt) => (attempt.content as { text: string }[]).map((b) => b.text))
}

async function stopped(session: ScriptedSession) {
  return double.waitForWork(double.workFor(session.id).id, (item) => item.state === 'stopped')
}

describe('the SDK reference worker against the double', () => {
  it('answers every call of every turn exactly once, in order, and force-stops the item', async () => {
    const session = double.openSession(environment.id, {
      turns: [
        [{ name: 'probe', input: { n: 1 } }, { name: 'probe', input: { n: 2 } }, { name: 'silent' }],
        [{ name: 'probe', input: { n: 3 } }],
      ],
    })
    start()
    await session.waitForEnd()
    const item = await stopped(session)
    const ids = session.turnIds.flat()
    for (const id of ids) expect(session.resultsFor(id)).toHaveLength(1)
    expect(session.attempts.map((attempt) => attempt.toolUseId)).toEqual(ids)
    expect(session.refusedResults()).toEqual([])
    expect(textOf(session, ids[0]!)).toEqual(['probe {"n":1}'])
    // anthropic-sdk-go#377 (an empty text refused, the session wedged): this SDK sends a placeholder instead.
    expect(textOf(session, ids[2]!)).toEqual(['(no output)'])
    expect(item.deliveries).toBe(1)
    expect(double.unhandled).toEqual([])
    expect(double.requests.every((request) => request.status < 400)).toBe(true)
  })

  it('uses the sessions token of the work secret for the item, and the environment key without one', async () => {
    const session = double.openSession(environment.id, { turns: [[{ name: 'probe' }]] })
    start()
    await stopped(session)
    const kinds = (path: string) =>
      new Set(double.requests.filter((r) => r.path.includes(path)).map((r) => r.credential))
    expect(kinds('/work/poll')).toEqual(new Set(['environment_key']))
    expect(kinds('/v1/sessions/')).toEqual(new Set(['sessions_token']))
    expect(kinds('/heartbeat')).toEqual(new Set(['sessions_token']))

    await worker?.stop()
    await double.close()
    double = await startManagedAgentsDouble({ issueSecrets: false })
    environment = double.createEnvironment()
    const plain = double.openSession(environment.id, { turns: [[{ name: 'probe' }]] })
    start()
    await stopped(plain)
    expect(new Set(double.requests.map((r) => r.credential))).toEqual(new Set(['environment_key']))
    expect(plain.resultsFor(plain.turnIds[0]![0]!)).toHaveLength(1)
  })

  it('serves one session at a time: a second session waits in the queue while the first holds a call', async () => {
    const first = double.openSession(environment.id, { turns: [[{ name: 'gated' }]] })
    const second = double.openSession(environment.id, { turns: [[{ name: 'probe' }]] })
    start()
    await probes.started(first.turnIds[0]![0]!)
    // The worker's loop awaits the session it holds before it polls again.
    expect(double.workFor(second.id)).toMatchObject({ state: 'queued', deliveries: 0 })
    probes.openGate()
    await second.waitForEnd()
    await stopped(second)
    expect(first.resultsFor(first.turnIds[0]![0]!)).toHaveLength(1)
  })

  it('holds an ask call until its confirmation; runs the allowed one, never the denied one', async () => {
    const session = double.openSession(environment.id, {
      turns: [
        [
          { name: 'probe', input: { n: 'allowed' }, permission: 'ask' },
          { name: 'probe', input: { n: 'denied' }, permission: 'ask' },
          { name: 'probe', input: { n: 'free' } },
        ],
      ],
    })
    const [allowed, denied, free] = session.turnIds[0] as [string, string, string]
    start()
    await session.waitForResult(free)
    // anthropic-sdk-go#388 (an ask call run before its confirmation) does not happen with this SDK.
    expect(probes.runsOf(allowed)).toEqual([])
    session.confirm(allowed, 'allow')
    await session.waitForResult(allowed)
    session.confirm(denied, 'deny', 'not on this host')
    await session.waitForEnd()
    await stopped(session)
    expect(probes.runsOf(denied)).toEqual([])
    expect(session.resultsFor(allowed)).toHaveLength(1)
    expect(session.resultsFor(denied)).toEqual([])
    expect(session.refusedResults()).toEqual([])
  })

  it('runs a call the user interrupted before it started (anthropic-sdk-go#393)', async () => {
    const session = double.openSession(environment.id, {
      turns: [
        [
          { name: 'gated', input: { n: 1 } },
          { name: 'probe', input: { n: 2 } },
        ],
      ],
      end: 'end_turn',
    })
    const [running, queued] = session.turnIds[0] as [string, string]
    start()
    await probes.started(running)
    session.interrupt()
    expect(session.calls.get(queued)?.status).toBe('interrupted')
    probes.openGate()
    await session.waitForResult(queued)
    session.terminate()
    await stopped(session)
    // The reference worker runs one call at a time and never acts on user.interrupt: the running call runs
    // to its end, and the call that had not started yet is started after the interrupt all the same.
    expect(probes.runsOf(running).map((run) => run.outcome)).toEqual(['done'])
    expect(probes.runsOf(queued).map((run) => run.outcome)).toEqual(['done'])
    expect(session.resultsFor(running)[0]?.callStatus).toBe('interrupted')
    expect(session.resultsFor(queued)[0]?.callStatus).toBe('interrupted')
    expect(session.refusedResults()).toEqual([])
  })

  it('after a lapsed lease: 412, the item is redelivered, answered calls are not re-run, the open one is', async () => {
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'probe', input: { n: 1 } }], [{ name: 'gated', input: { n: 2 } }]],
    })
    const [first] = session.turnIds[0] as [string]
    const reference = start()
    await session.waitForResult(first)
    const second = session.turnIds[1]?.[0] as string
    await probes.started(second)
    const work = double.workFor(session.id)
    double.expireLease(work.id)
    await double.waitForWork(work.id, (item) => item.deliveries === 2)
    await probes.started(second, 2)
    probes.openGate()
    await session.waitForEnd()
    await stopped(session)
    expect(reference.logs.some((line) => line.includes('lease lost: heartbeat precondition failed'))).toBe(true)
    expect(probes.runsOf(first)).toHaveLength(1)
    expect(probes.runsOf(second).map((run) => run.outcome)).toEqual(['aborted', 'done'])
    expect(session.resultsFor(first)).toHaveLength(1)
    expect(session.resultsFor(second)).toHaveLength(1)
  })

  it('after a lost first heartbeat answer: 412 on the retry, the session is dropped and the item left held (anthropic-sdk-python#1779)', async () => {
    const session = double.openSession(environment.id, { turns: [[{ name: 'gated', input: { n: 1 } }]] })
    const [call] = session.turnIds[0] as [string]
    const work = double.workFor(session.id)
    double.loseHeartbeatResponses(work.id)
    const reference = start()
    // The retried first beat still says NO_HEARTBEAT, but the double recorded the lost one: 412.
    await double.waitForRequest((request) => request.path.endsWith('/heartbeat') && request.status === 412)
    await probes.ended(call)
    expect(reference.logs.some((line) => line.includes('lease lost: heartbeat precondition failed'))).toBe(true)
    // The worker dropped the session without stopping the item: it stays active, its call unanswered, until
    // the lease lapses (here: the test lapses it) and the item is redelivered.
    expect(double.work(work.id).state).toBe('active')
    expect(session.resultsFor(call)).toEqual([])
    double.expireLease(work.id)
    probes.openGate()
    await session.waitForEnd()
    await stopped(session)
    expect(double.work(work.id).deliveries).toBe(2)
    expect(probes.runsOf(call).map((run) => run.outcome)).toEqual(['aborted', 'done'])
    expect(session.resultsFor(call)).toHaveLength(1)
  })

  it('stops serving and force-stops the item when a heartbeat says stopping', async () => {
    const session = double.openSession(environment.id, { turns: [[{ name: 'gated' }]] })
    const [call] = session.turnIds[0] as [string]
    const reference = start()
    await probes.started(call)
    double.requestStop(double.workFor(session.id).id)
    await stopped(session)
    expect(reference.logs.some((line) => line.includes('heartbeat signals shutdown'))).toBe(true)
    expect(probes.runsOf(call).map((run) => run.outcome)).toEqual(['aborted'])
    // The stopped item leaves its call unanswered: nothing else will answer it.
    expect(session.resultsFor(call)).toEqual([])
  })

  it('serves a follow-up message to a dormant session as a new work item', async () => {
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'probe', input: { n: 1 } }]],
      end: 'end_turn',
    })
    // The reference runner leaves a session that ended its turn after maxIdleMs, then stops the item.
    worker = startReferenceWorker(double, { environment, workdir, tools: probes.tools, maxIdleMs: 100 })
    const first = await stopped(session)
    double.continueSession(session.id, [[{ name: 'probe', input: { n: 2 } }]])
    const second = double.workFor(session.id)
    expect(second.id).not.toBe(first.id)
    await session.waitForEnd()
    await double.waitForWork(second.id, (item) => item.state === 'stopped')
    expect(session.turnIds).toHaveLength(2)
    for (const id of session.turnIds.flat()) expect(session.resultsFor(id)).toHaveLength(1)
    expect(probes.runs).toHaveLength(2)
  })

  it('answers a healthcheck work item by heartbeating and stopping it', async () => {
    const item = double.enqueueHealthcheck(environment.id)
    start()
    // It may stop the item before its first heartbeat lands: the handler ends at once for a non-session item.
    const done = await double.waitForWork(item.id, (candidate) => candidate.state === 'stopped')
    expect(done.deliveries).toBe(1)
  })

  it('runs the default agent toolset (bash) for a scripted call', async () => {
    const session = double.openSession(environment.id, { turns: [[{ name: 'bash', input: { command: 'echo hi' } }]] })
    worker = startReferenceWorker(double, { environment, workdir })
    await session.waitForEnd()
    const [call] = session.turnIds[0] as [string]
    expect(textOf(session, call).join('')).toContain('hi')
  })
})
