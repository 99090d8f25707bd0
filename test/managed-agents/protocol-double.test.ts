// Pins the protocol double's wire format by driving it through plain @anthropic-ai/sdk resource calls:
// poll/ack/heartbeat (and the 412 the SDK raises as BetaHeartbeatPreconditionFailedError), stop, redelivery,
// and the 400s of `events.send` (a result before its confirmation, an empty text, a second result).
import Anthropic, { BadRequestError } from '@anthropic-ai/sdk'
import { BetaHeartbeatPreconditionFailedError } from '@anthropic-ai/sdk/resources/beta/environments/work'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type ManagedAgentsDouble, startManagedAgentsDouble } from '../helpers/managed-agents/index.js'

let double: ManagedAgentsDouble
let environment: { id: string; key: string }
let worker: Anthropic
let user: Anthropic

beforeEach(async () => {
  double = await startManagedAgentsDouble({ leaseTtlSeconds: 30 })
  environment = double.createEnvironment()
  worker = new Anthropic({ baseURL: double.baseURL, apiKey: null, authToken: environment.key, maxRetries: 0 })
  user = new Anthropic({ baseURL: double.baseURL, apiKey: double.apiKey, maxRetries: 0 })
})
afterEach(async () => {
  await double.close()
})

function sessionsTokenOf(secret: string | null): string {
  return JSON.parse(Buffer.from(secret ?? '', 'base64url').toString('utf8')).sessions_token
}

describe('work queue', () => {
  it('polls, acks and heartbeats an item, with the lease TTL in the answer', async () => {
    const session = double.openSession(environment.id, { turns: [[{ name: 'read' }]] })
    const work = await worker.beta.environments.work.poll(environment.id, { block_ms: 10 })
    expect(work).toMatchObject({ type: 'work', state: 'queued', data: { type: 'session', id: session.id } })
    expect(sessionsTokenOf(work?.secret ?? null)).toMatch(/^sk-ant-req_/)
    const acked = await worker.beta.environments.work.ack(work!.id, { environment_id: environment.id })
    expect(acked.state).toBe('starting')
    const beat = await worker.beta.environments.work.heartbeat(work!.id, {
      environment_id: environment.id,
      expected_last_heartbeat: 'NO_HEARTBEAT',
    })
    expect(beat).toMatchObject({ type: 'work_heartbeat', lease_extended: true, state: 'active', ttl_seconds: 30 })
    const next = await worker.beta.environments.work.heartbeat(work!.id, {
      environment_id: environment.id,
      expected_last_heartbeat: beat.last_heartbeat,
      desired_ttl_seconds: 5,
    })
    expect(next.ttl_seconds).toBe(5)
    expect(next.last_heartbeat > beat.last_heartbeat).toBe(true)
  })

  it('answers an empty queue with null', async () => {
    expect(await worker.beta.environments.work.poll(environment.id, { block_ms: 1 })).toBeNull()
  })

  it('refuses a stale expected_last_heartbeat with 412 and the lease as the server holds it', async () => {
    double.openSession(environment.id, { turns: [[{ name: 'read' }]] })
    const work = (await worker.beta.environments.work.poll(environment.id))!
    await worker.beta.environments.work.ack(work.id, { environment_id: environment.id })
    const first = await worker.beta.environments.work.heartbeat(work.id, {
      environment_id: environment.id,
      expected_last_heartbeat: 'NO_HEARTBEAT',
    })
    const stale = worker.beta.environments.work.heartbeat(work.id, {
      environment_id: environment.id,
      expected_last_heartbeat: 'NO_HEARTBEAT',
    })
    await expect(stale).rejects.toBeInstanceOf(BetaHeartbeatPreconditionFailedError)
    const error = (await stale.catch((caught: unknown) => caught)) as BetaHeartbeatPreconditionFailedError
    expect(error.status).toBe(412)
    expect(error.errorCode).toBe('heartbeat_precondition_failed')
    expect(error.details.current_state).toMatchObject({ last_heartbeat: first.last_heartbeat, state: 'active' })
  })

  it('redelivers an unacknowledged item once it is older than reclaim_older_than_ms', async () => {
    double.openSession(environment.id, { turns: [[{ name: 'read' }]] })
    const first = (await worker.beta.environments.work.poll(environment.id))!
    expect(await worker.beta.environments.work.poll(environment.id, { reclaim_older_than_ms: 60_000 })).toBeNull()
    const again = await worker.beta.environments.work.poll(environment.id, { reclaim_older_than_ms: 0 })
    expect(again?.id).toBe(first.id)
    expect(double.work(first.id).deliveries).toBe(2)
  })

  it('redelivers an acknowledged item whose lease lapsed; the old holder then gets 412', async () => {
    double.openSession(environment.id, { turns: [[{ name: 'read' }]] })
    const work = (await worker.beta.environments.work.poll(environment.id))!
    await worker.beta.environments.work.ack(work.id, { environment_id: environment.id })
    const beat = await worker.beta.environments.work.heartbeat(work.id, { environment_id: environment.id })
    double.expireLease(work.id)
    expect((await worker.beta.environments.work.poll(environment.id))?.id).toBe(work.id)
    await expect(
      worker.beta.environments.work.heartbeat(work.id, {
        environment_id: environment.id,
        expected_last_heartbeat: beat.last_heartbeat,
      }),
    ).rejects.toBeInstanceOf(BetaHeartbeatPreconditionFailedError)
  })

  it('says stopping, lease not extended, after a graceful stop; a second force stop is 409', async () => {
    double.openSession(environment.id, { turns: [[{ name: 'read' }]] })
    const work = (await worker.beta.environments.work.poll(environment.id))!
    await worker.beta.environments.work.ack(work.id, { environment_id: environment.id })
    const beat = await worker.beta.environments.work.heartbeat(work.id, { environment_id: environment.id })
    double.requestStop(work.id)
    const next = await worker.beta.environments.work.heartbeat(work.id, {
      environment_id: environment.id,
      expected_last_heartbeat: 'not compared while stopping',
    })
    expect(next).toMatchObject({ state: 'stopping', lease_extended: false, last_heartbeat: beat.last_heartbeat })
    const stopped = await worker.beta.environments.work.stop(work.id, { environment_id: environment.id, force: true })
    expect(stopped.state).toBe('stopped')
    await expect(
      worker.beta.environments.work.stop(work.id, { environment_id: environment.id, force: true }),
    ).rejects.toMatchObject({ status: 409 })
  })

  it('requires the managed-agents beta header and a known credential', async () => {
    const noBeta = await fetch(`${double.baseURL}/v1/environments/${environment.id}/work/poll`, {
      headers: { authorization: `Bearer ${environment.key}` },
    })
    expect(noBeta.status).toBe(400)
    expect(JSON.stringify(await noBeta.json())).toContain('managed-agents-2026-04-01')
    const stranger = new Anthropic({ baseURL: double.baseURL, apiKey: null, authToken: 'wrong', maxRetries: 0 })
    await expect(stranger.beta.environments.work.poll(environment.id)).rejects.toMatchObject({ status: 401 })
  })

  it('lists items and queue stats', async () => {
    double.openSession(environment.id, { turns: [[{ name: 'read' }]] })
    double.enqueueHealthcheck(environment.id)
    const items = []
    for await (const item of worker.beta.environments.work.list(environment.id)) items.push(item.data.type)
    expect(items).toEqual(['session', 'healthcheck'])
    expect(await user.beta.environments.work.stats(environment.id)).toMatchObject({ depth: 2, pending: 0 })
    const statsCall = await double.waitForRequest((request) => request.path.endsWith('/work/stats'))
    expect(statsCall).toMatchObject({ method: 'GET', status: 200, credential: 'api_key' })
  })
})

describe('session events', () => {
  async function claimToken(): Promise<Anthropic> {
    const work = (await worker.beta.environments.work.poll(environment.id))!
    return new Anthropic({
      baseURL: double.baseURL,
      apiKey: null,
      authToken: sessionsTokenOf(work.secret),
      maxRetries: 0,
    })
  }

  it('lists the scripted turn and accepts one non-empty result per call', async () => {
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'read', input: { path: 'a' } }]],
      end: 'end_turn',
    })
    const client = await claimToken()
    const events = []
    for await (const event of client.beta.sessions.events.list(session.id)) events.push(event.type)
    expect(events).toEqual(['user.message', 'session.status_running', 'agent.tool_use', 'session.status_idle'])
    const [toolUseId] = session.turnIds[0]!
    const empty = client.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.tool_result', tool_use_id: toolUseId!, content: [{ type: 'text', text: '' }] }],
    })
    await expect(empty).rejects.toBeInstanceOf(BadRequestError)
    await expect(empty).rejects.toThrow(/non-whitespace text/)
    const sent = await client.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.tool_result', tool_use_id: toolUseId!, content: [{ type: 'text', text: 'ok' }] }],
    })
    expect(sent.data?.[0]).toMatchObject({ type: 'user.tool_result', tool_use_id: toolUseId })
    await expect(
      client.beta.sessions.events.send(session.id, {
        events: [{ type: 'user.tool_result', tool_use_id: toolUseId!, content: [{ type: 'text', text: 'again' }] }],
      }),
    ).rejects.toThrow(/already has a user.tool_result/)
    expect(session.resultsFor(toolUseId!)).toHaveLength(1)
    expect(session.refusedResults().map((attempt) => attempt.status)).toEqual([400, 400])
    expect(session.status).toBe('idle')
  })

  it('refuses a result for an ask call before its confirmation, and accepts it after', async () => {
    const session = double.openSession(environment.id, { turns: [[{ name: 'bash', permission: 'ask' }]] })
    const client = await claimToken()
    const [toolUseId] = session.turnIds[0]!
    const result = {
      type: 'user.tool_result' as const,
      tool_use_id: toolUseId!,
      content: [{ type: 'text' as const, text: 'ran' }],
    }
    await expect(client.beta.sessions.events.send(session.id, { events: [result] })).rejects.toThrow(
      /no user.tool_confirmation yet/,
    )
    await user.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.tool_confirmation', tool_use_id: toolUseId!, result: 'allow' }],
    })
    await client.beta.sessions.events.send(session.id, { events: [result] })
    expect(session.resultsFor(toolUseId!)).toHaveLength(1)
  })

  it('accepts text and image results, and refuses an image without data', async () => {
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'read', input: { path: 'a.png' } }]],
      end: 'end_turn',
    })
    const client = await claimToken()
    const [toolUseId] = session.turnIds[0] as [string]
    const image = (data: string) => ({
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png', data },
    })
    await expect(
      client.beta.sessions.events.send(session.id, {
        events: [{ type: 'user.tool_result', tool_use_id: toolUseId, content: [image('')] }],
      }),
    ).rejects.toThrow(/events.0.content.0.source.data/)
    await client.beta.sessions.events.send(session.id, {
      events: [
        {
          type: 'user.tool_result',
          tool_use_id: toolUseId,
          content: [{ type: 'text', text: 'a.png, 1 image' }, image('iVBORw0KGgo=')],
        },
      ],
    })
    expect(session.resultsFor(toolUseId)[0]?.content).toHaveLength(2)
  })

  it('streams new events over SSE as the SDK parses them', async () => {
    const session = double.openSession(environment.id, { turns: [[{ name: 'bash', permission: 'ask' }]] })
    const client = await claimToken()
    const stream = await client.beta.sessions.events.stream(session.id)
    session.confirm(session.turnIds[0]![0]!, 'deny', 'not on prod')
    for await (const event of stream) {
      if (event.type === 'session.status_terminated') break
      expect(['user.tool_confirmation', 'agent.message', 'session.status_idle']).toContain(event.type)
    }
    expect(session.calls.get(session.turnIds[0]![0]!)?.status).toBe('denied')
    const retrieved = await client.beta.sessions.retrieve(session.id)
    expect(retrieved.status).toBe('terminated')
  })
})
