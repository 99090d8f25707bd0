// Pins the webhook sender against a real HTTP receiver: a delivery refused with a 4xx is given up
// at once with its status as the cause; closing the sender aborts the attempt in flight; a full
// queue drops (and counts) instead of growing.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createWebhookSender } from '../../src/notify/webhook-sender.js'

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A receiver answering `status`, or never ('never'); `requests` sees each request as it arrives. */
async function receiver(status: number | 'never') {
  const requests: IncomingMessage[] = []
  const server = createServer((request, response) => {
    requests.push(request)
    request.resume()
    if (status !== 'never') request.on('end', () => response.writeHead(status).end())
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests }
}

const options = { secret: 'a-secret-long-enough', timeoutMs: 60_000, maxAttempts: 3, retryBaseMs: 10 }

describe('createWebhookSender', () => {
  it('gives up a delivery refused with a 4xx at once, saying the status', async () => {
    const hook = await receiver(400)
    const given = new Promise<{ attempts: number; lastError: string }>((resolve) => {
      const sender = createWebhookSender({ ...options, url: hook.url, onGiveUp: resolve })
      sender.deliver({ type: 'permission.requested' })
    })
    expect(await given).toMatchObject({ attempts: 1, lastError: 'HTTP 400' })
  })

  it('aborts the attempt in flight when it closes', async () => {
    const hook = await receiver('never')
    const sender = createWebhookSender({ ...options, url: hook.url })
    sender.deliver({ type: 'permission.requested' })
    while (hook.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    const closed = new Promise((resolve) => hook.requests[0]!.socket.once('close', resolve))
    sender.close()
    await closed
    expect(sender.stats()).toMatchObject({ delivered: 0 })
  })

  it('drops and counts what a full queue cannot take, without growing', async () => {
    const hook = await receiver('never')
    const sender = createWebhookSender({ ...options, url: hook.url, maxQueued: 1 })
    for (let index = 0; index < 5; index++) sender.deliver({ index })
    expect(sender.stats()).toMatchObject({ queued: 1, dropped: 4 })
    sender.close()
  })
})
