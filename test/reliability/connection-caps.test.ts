// Pins the connection caps (docs/security.md#connections): one address holding sockets with
// half-sent headers is capped and cannot stop another address's /healthz and Bash runs; a total
// cap refuses everybody past it; a peer that never finishes its headers is closed after the
// header timeout; behind a trusted proxy the cap applies to the client it reports. Caps are set
// low here; the full-scale flood is bench/connection-flood.ts.
import { connect, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { startGatedRun } from '../helpers/gated-run.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect as connectWebSocket } from '../helpers/ws-client.js'

type HeldSocket = { socket: Socket; closed: Promise<void> }

/** Opens a socket from `from` and sends half a request line, as a slow-headers flood does. */
function halfRequest(port: number, from: string): HeldSocket {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from })
  socket.on('error', () => undefined)
  // Read what the server says (a 408), so its close is seen.
  socket.resume()
  socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '))
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) }
}

/** Waits until `count` of the sockets were closed by the server; answers which stayed open. */
async function closedByServer(held: HeldSocket[], count: number): Promise<HeldSocket[]> {
  let closed = 0
  await new Promise<void>((resolve) => {
    for (const entry of held) {
      void entry.closed.then(() => {
        closed += 1
        if (closed === count) resolve()
      })
    }
  })
  return held.filter((entry) => !entry.socket.destroyed)
}

async function metric(baseUrl: string, line: RegExp): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text()
  return Number(line.exec(text)?.[1] ?? Number.NaN)
}

describe('connection caps', () => {
  it('caps one address and keeps /healthz and Bash runs answering for another', async () => {
    const { baseUrl } = await startTestServer({
      env: { TOOLEXEC_MAX_CONNECTIONS_PER_PEER: '20', TOOLEXEC_MAX_CONNECTIONS: '200' },
      settings: { permissions: { allow: ['Bash'] } },
    })
    const port = Number(new URL(baseUrl).port)
    const flood = Array.from({ length: 60 }, () => halfRequest(port, '127.0.0.2'))
    const open = await closedByServer(flood, 40)
    expect(open).toHaveLength(20)

    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200)
    const run = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_uses: [{ type: 'tool_use', id: 't', name: 'Bash', input: { command: 'echo still here' } }],
      }),
    })
    expect(((await run.json()) as { results: Array<{ content: string }> }).results[0]?.content).toBe('still here')
    expect(await metric(baseUrl, /toolexec_connections_refused_total\{reason="per_peer"\} (\d+)/)).toBe(40)
    expect(await metric(baseUrl, /toolexec_connections_open (\d+)/)).toBeGreaterThanOrEqual(20)
    for (const entry of open) entry.socket.destroy()
  })

  it('refuses everybody past the total cap, and serves again once connections close', async () => {
    const { baseUrl } = await startTestServer({
      env: { TOOLEXEC_MAX_CONNECTIONS_PER_PEER: '20', TOOLEXEC_MAX_CONNECTIONS: '30' },
    })
    const port = Number(new URL(baseUrl).port)
    const first = Array.from({ length: 20 }, () => halfRequest(port, '127.0.0.2'))
    await Promise.all(first.map((entry) => new Promise((resolve) => entry.socket.once('connect', resolve))))
    const second = Array.from({ length: 20 }, () => halfRequest(port, '127.0.0.3'))
    expect(await closedByServer(second, 10)).toHaveLength(10)
    for (const entry of [...first, ...second]) entry.socket.destroy()
    await Promise.all([...first, ...second].map((entry) => entry.closed))
    // The server counts a socket out when it sees the close; /healthz gets through once it has.
    let status = 0
    while (status !== 200)
      status = await fetch(`${baseUrl}/healthz`).then(
        (response) => response.status,
        () => 0,
      )
    expect(await metric(baseUrl, /toolexec_connections_refused_total\{reason="total"\} (\d+)/)).toBeGreaterThanOrEqual(
      10,
    )
  })

  it('closes a peer that never finishes its headers after the header timeout', async () => {
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_HEADERS_TIMEOUT_MS: '300' } })
    const held = halfRequest(Number(new URL(baseUrl).port), '127.0.0.2')
    // Node's own default would hold it for a minute and more; the test's timeout is far shorter.
    await held.closed
    expect(held.socket.destroyed).toBe(true)
  }, 10_000)

  it('behind a trusted proxy, caps the client the proxy reports, not the proxy', async () => {
    const tools = createTestTools()
    const { baseUrl, wsUrl } = await startTestServer({
      extraTools: tools.tools,
      env: { TOOLEXEC_MAX_CONNECTIONS_PER_PEER: '3', TOOLEXEC_TRUSTED_PROXIES: '127.0.0.2' },
    })
    const started = { run_id: await startGatedRun(baseUrl) }
    const events = `${wsUrl}/v1/runs/${started.run_id}/events`
    const asClient = (client: string, from: string) =>
      connectWebSocket(events, { 'x-forwarded-for': client }, { localAddress: from })
    // Through the proxy: three sockets of one client open, its fourth is refused; another client is not.
    const mine = [
      asClient('203.0.113.7', '127.0.0.2'),
      asClient('203.0.113.7', '127.0.0.2'),
      asClient('203.0.113.7', '127.0.0.2'),
    ]
    await Promise.all(mine.map((socket) => socket.opened))
    await expect(asClient('203.0.113.7', '127.0.0.2').opened).rejects.toThrow('HTTP 429')
    const other = asClient('203.0.113.8', '127.0.0.2')
    await other.opened
    // From an address that is not a trusted proxy, X-Forwarded-For is not believed.
    const direct = [
      asClient('198.51.100.1', '127.0.0.3'),
      asClient('198.51.100.2', '127.0.0.3'),
      asClient('198.51.100.3', '127.0.0.3'),
    ]
    await Promise.all(direct.map((socket) => socket.opened))
    const fourth = asClient('198.51.100.4', '127.0.0.3')
    await expect(fourth.opened).rejects.toThrow()
    tools.open('g', 'done')
    await Promise.all([...mine, other, ...direct].map((socket) => socket.closed))
  })
})
