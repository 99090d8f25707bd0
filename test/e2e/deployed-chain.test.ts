// Pins the whole chain as deployed (docker-compose.yml): a real nginx with the repository's
// deploy/nginx.conf (adapted in ports and paths only) in front of two service processes on one
// real redis-server and one shared data directory. Through nginx: the README curl session, a
// run's events followed from the other instance, an ask answered, the bash client tool's `cd`
// and `export` kept and memories found whichever instance a run lands on, blobs, the caller's
// X-Request-Id kept, and /metrics not published. Without nginx it fails under CI=true.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RESTORED_NOTE } from '../../src/tools/client-bash/shell-state.js'
import { type DeployedPair, startDeployedPair } from '../helpers/deployed-pair.js'
import { type NginxServer, nginxMissingReason } from '../helpers/nginx-server.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import type { ServiceProcess } from '../helpers/service-process.js'
import { connect } from '../helpers/ws-client.js'

const root = new URL('../..', import.meta.url)
const missing = nginxMissingReason ?? redisSkipReason
const required = process.env.CI === 'true'

describe('the deployed chain: nginx, two instances, Redis', () => {
  it.runIf(missing !== undefined && required)('has nginx and redis-server in CI', () => {
    throw new Error(`the deployed-chain test cannot run: ${missing}`)
  })
  if (missing !== undefined && !required) {
    it.skip(`skipped locally: ${missing}`, () => undefined)
    return
  }
  if (missing !== undefined) return

  let redis: RedisServer
  let instances: ServiceProcess[] = []
  let nginx: NginxServer
  let deployment: DeployedPair | undefined
  let data: string

  beforeAll(async () => {
    redis = await startRedisServer()
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-chain-'))
    const environment = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
      TOOLEXEC_SANDBOX: 'off',
    }
    deployment = await startDeployedPair(environment)
    ;({ instances, nginx } = deployment)
  }, 90_000)

  afterAll(async () => {
    await deployment?.stop()
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  const post = (url: string, body: unknown) =>
    fetch(`${nginx.baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('runs the README curl session as written', async () => {
    const text = readFileSync(new URL('README.md', root), 'utf8')
    const script = /<!-- curl-session -->\n```sh\n([\s\S]*?)```/.exec(text)?.[1]
    expect(script).toBeDefined()
    const result = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script!], {
      env: { ...process.env, BASE: nginx.baseUrl },
      encoding: 'utf8',
      timeout: 30_000,
    })
    const lines = result.stdout.trim().split('\n')
    expect(JSON.parse(lines[0]!)).toMatchObject({ tool_use_id: 'toolu_1', preview: expect.stringMatching(/demo$/) })
    expect(JSON.parse(lines[1]!).preview).toContain('<persisted-output>')
    expect(lines.slice(2)).toEqual(['19999', '20000'])
  }, 40_000)

  it("keeps a caller's X-Request-Id, generates one otherwise, and does not publish /metrics", async () => {
    const kept = await fetch(`${nginx.baseUrl}/healthz`, { headers: { 'x-request-id': 'caller-chosen-id-1' } })
    expect(kept.headers.get('x-request-id')).toBe('caller-chosen-id-1')
    const generated = await fetch(`${nginx.baseUrl}/healthz`)
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{16,}$/)
    expect((await fetch(`${nginx.baseUrl}/metrics`)).status).toBe(404)
    // Still there for the operator's scraper, on each instance directly.
    expect((await fetch(`${instances[0]!.baseUrl}/metrics`)).status).toBe(200)
  })

  it('follows a run started through nginx from the other instance, and answers its ask', async () => {
    const session = (await (await post('/v1/sessions', {})).json()) as { session_id: string; cwd: string }
    const started = await post('/v1/runs', {
      wait: false,
      session_id: session.session_id,
      tool_uses: [
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'echo first' } },
        { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'touch approved.txt && echo approved' } },
      ],
    })
    expect(started.status).toBe(202)
    const run = (await started.json()) as { run_id: string; events_url: string }
    // Round robin: the WebSocket lands on the instance after the one that took the POST.
    const client = connect(`${nginx.wsUrl}${run.events_url}`)
    const asked = await client.until((frame) => frame.type === 'permission.requested')
    const answered = await post(`/v1/runs/${run.run_id}/permissions/${asked.request_id}`, { decision: 'allow' })
    expect(answered.status).toBe(200)
    await client.closed
    const frames = client.received
    expect(frames.map((frame) => frame.seq)).toEqual(frames.map((_, index) => index + 1))
    expect(frames.filter((frame) => frame.type === 'tool.result').map((frame) => frame.result)).toEqual([
      expect.objectContaining({ content: 'first' }),
      expect.objectContaining({ content: 'approved' }),
    ])
    expect(frames.at(-1)).toMatchObject({ type: 'run.completed', status: 'completed' })
    expect(readFileSync(path.join(session.cwd, 'approved.txt'), 'utf8')).toBe('')
  }, 30_000)

  it("keeps the bash client tool's cd and export and finds memories on whichever instance a run lands", async () => {
    const created = await post('/v1/sessions', { toolsets: ['anthropic_client'], permissions: { allow: ['bash'] } })
    expect(created.status).toBe(201)
    const session = (await created.json()) as { session_id: string; cwd: string }
    let turn = 0
    const call = async (name: string, input: Record<string, unknown>) => {
      turn += 1
      const response = await post('/v1/runs', {
        session_id: session.session_id,
        tool_uses: [{ type: 'tool_use', id: `toolu_${turn}`, name, input }],
      })
      expect(response.status).toBe(200)
      const body = (await response.json()) as { results: Array<{ content: string; is_error?: boolean }> }
      return body.results[0]!
    }
    expect(await call('bash', { command: 'mkdir -p src && cd src && export STAGE=two' })).toMatchObject({
      content: '(bash completed with no output)',
    })
    expect(await call('memory', { command: 'create', path: '/memories/plan.md', file_text: 'ship it' })).toMatchObject({
      content: 'File created successfully at: /memories/plan.md',
    })
    // Two instances, round robin: of the next runs, some land on each; every one sees the state.
    const answers = []
    for (let index = 0; index < 3; index++)
      answers.push((await call('bash', { command: 'pwd; echo "$STAGE"' })).content)
    for (const answer of answers) expect(answer.endsWith(`${session.cwd}/src\ntwo`)).toBe(true)
    expect(answers.some((answer) => answer.startsWith(RESTORED_NOTE))).toBe(true)
    for (let index = 0; index < 2; index++) {
      expect((await call('memory', { command: 'view', path: '/memories/plan.md' })).content).toContain('ship it')
    }
  }, 40_000)

  it('serves a blob written by one instance through either', async () => {
    const response = await post('/v1/runs', {
      tool_uses: [{ type: 'tool_use', id: 'big', name: 'Bash', input: { command: 'seq 1 20000' } }],
    })
    const body = (await response.json()) as { blobs: Array<{ url: string }> }
    const url = body.blobs[0]!.url
    for (let index = 0; index < 2; index++) {
      const blob = await fetch(`${nginx.baseUrl}${url}`)
      expect(blob.status).toBe(200)
      expect((await blob.text()).trimEnd().split('\n').at(-1)).toBe('20000')
    }
  })
})
