// Pins the ask webhook against real HTTP receivers (docs/adr/0246-ask-webhook.md): the receiver
// of examples/ as its own process gets each ask and its answer, signed, with the ask's URL; a
// receiver that fails twice gets the same delivery three times; a receiver that never answers
// does not hold up the run; a bad signature or a stale timestamp fails verification; a URL
// without a secret is refused at start.
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load-config.js'
import { signWebhook, verifyWebhookSignature } from '../../src/notify/sign-webhook.js'
import { runCompleted } from '../helpers/run-completion.js'
import { startTestServer } from '../helpers/start-test-server.js'

const SECRET = 'a-webhook-secret-of-some-length'
const root = fileURLToPath(new URL('../../', import.meta.url))
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type Delivery = { headers: IncomingMessage['headers']; body: string }

/** A receiver in this process that answers each delivery with `statuses` in turn (then 200), or never. */
async function receiver(
  statuses: Array<number | 'never'> = [],
): Promise<{ url: string; deliveries: Delivery[]; next: (count: number) => Promise<void> }> {
  const deliveries: Delivery[] = []
  const waiting: Array<() => void> = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') })
      for (const wake of waiting.splice(0)) wake()
      const status = statuses.shift() ?? 200
      if (status !== 'never') response.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    async next(count) {
      while (deliveries.length < count) await new Promise<void>((resolve) => waiting.push(resolve))
    },
  }
}

async function serverWith(url: string, extra: Record<string, string> = {}) {
  const server = await startTestServer({
    lifetime: 'manual',
    env: {
      TOOLEXEC_ASK_WEBHOOK_URL: url,
      TOOLEXEC_ASK_WEBHOOK_SECRET: SECRET,
      TOOLEXEC_ASK_WEBHOOK_RETRY_BASE_MS: '20',
      TOOLEXEC_PUBLIC_URL: 'https://toolexec.example',
      ...extra,
    },
  })
  cleanups.push(() => server.close())
  return server
}

const write = { type: 'tool_use', id: 'w1', name: 'Write', input: { file_path: 'hooked.txt', content: 'x' } }

async function startAsk(baseUrl: string) {
  const response = await fetch(`${baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wait: false, tool_uses: [write] }),
  })
  return ((await response.json()) as { run_id: string }).run_id
}

async function openRequest(baseUrl: string, runId: string): Promise<string> {
  for (;;) {
    const run = (await (await fetch(`${baseUrl}/v1/runs/${runId}`)).json()) as {
      permission_requests: Array<{ request_id: string }>
    }
    if (run.permission_requests[0]) return run.permission_requests[0].request_id
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const answer = (baseUrl: string, runId: string, requestId: string, decision: string) =>
  fetch(`${baseUrl}/v1/runs/${runId}/permissions/${requestId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ decision }),
  })

describe('the ask webhook', () => {
  it('brings each ask and its answer to the example receiver, signed, with the ask URL', async () => {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'examples/ask-webhook-receiver.ts'], {
      cwd: root,
      env: { ...process.env, WEBHOOK_SECRET: SECRET, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    cleanups.push(() => child.kill())
    const lines: string[] = []
    const waiters: Array<() => void> = []
    child.stdout!.on('data', (chunk: Buffer) => {
      lines.push(...chunk.toString().trim().split('\n'))
      for (const wake of waiters.splice(0)) wake()
    })
    const line = async (pattern: RegExp) => {
      for (;;) {
        const found = lines.find((candidate) => pattern.test(candidate))
        if (found) return found
        await new Promise<void>((resolve) => waiters.push(resolve))
      }
    }
    const port = (await line(/^listening \d+$/)).split(' ')[1]
    const { baseUrl, app } = await serverWith(`http://127.0.0.1:${port}/hook`)
    const runId = await startAsk(baseUrl)
    const requestId = await openRequest(baseUrl, runId)
    expect(await line(/^ask /)).toBe(
      `ask ${requestId} for Write: https://toolexec.example/console/runs/${runId}/asks/${requestId}`,
    )
    await answer(baseUrl, runId, requestId, 'allow')
    expect(await line(/^resolved /)).toBe(`resolved ${requestId}: allow by loopback`)
    await runCompleted(app, runId)
    for (const route of ['/readyz', '/metrics', `/v1/runs/${runId}/events?after=0`]) {
      expect(
        await (await fetch(`${baseUrl}${route}`, { headers: { accept: 'text/event-stream' } })).text(),
      ).not.toContain(SECRET)
    }
    // A delivery signed with another secret is turned away.
    const body = JSON.stringify({ id: 'forged', type: 'permission.requested' })
    const forged = await fetch(`http://127.0.0.1:${port}/hook`, {
      method: 'POST',
      headers: { 'toolexec-signature': signWebhook(body, 'not-the-secret-at-all', Math.floor(Date.now() / 1000)) },
      body,
    })
    expect(forged.status).toBe(401)
  }, 30_000)

  it('retries a delivery the receiver failed, with the same id, and signs every attempt', async () => {
    const hook = await receiver([500, 500])
    const { baseUrl } = await serverWith(hook.url)
    const runId = await startAsk(baseUrl)
    await hook.next(3)
    const [first, second, third] = hook.deliveries
    expect(new Set([first, second, third].map((delivery) => delivery!.headers['toolexec-delivery'])).size).toBe(1)
    for (const delivery of [first, second, third]) {
      expect(verifyWebhookSignature(delivery!.body, delivery!.headers['toolexec-signature'] as string, SECRET)).toBe(
        true,
      )
      expect(JSON.parse(delivery!.body)).toMatchObject({
        type: 'permission.requested',
        run_id: runId,
        tenant: 'default',
      })
    }
    await answer(baseUrl, runId, await openRequest(baseUrl, runId), 'deny')
    await hook.next(4)
    expect(JSON.parse(hook.deliveries[3]!.body)).toMatchObject({
      type: 'permission.resolved',
      event: { decision: 'deny', reason: 'answer' },
    })
  })

  it('never holds up the run when the receiver never answers', async () => {
    const hook = await receiver(['never', 'never', 'never'])
    const { baseUrl, app } = await serverWith(hook.url, { TOOLEXEC_ASK_WEBHOOK_TIMEOUT_MS: '60000' })
    const runId = await startAsk(baseUrl)
    await hook.next(1)
    await answer(baseUrl, runId, await openRequest(baseUrl, runId), 'allow')
    const events = await runCompleted(app, runId)
    expect(events.find((event) => event.type === 'tool.result')).toMatchObject({ result: { tool_use_id: 'w1' } })
    // The first delivery is still hanging: the resolution waits behind it, the run did not.
    expect(hook.deliveries).toHaveLength(1)
  })

  it('verifies only the right secret within the tolerance, and refuses a URL without a secret', () => {
    const body = '{"a":1}'
    const now = Math.floor(Date.now() / 1000)
    expect(verifyWebhookSignature(body, signWebhook(body, SECRET, now), SECRET)).toBe(true)
    expect(verifyWebhookSignature(`${body} `, signWebhook(body, SECRET, now), SECRET)).toBe(false)
    expect(verifyWebhookSignature(body, signWebhook(body, SECRET, now - 600), SECRET)).toBe(false)
    expect(verifyWebhookSignature(body, undefined, SECRET)).toBe(false)
    expect(() => loadConfig({ TOOLEXEC_ASK_WEBHOOK_URL: 'https://hooks.example/x' })).toThrow(
      'TOOLEXEC_ASK_WEBHOOK_SECRET',
    )
  })
})
