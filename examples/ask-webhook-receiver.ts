// A receiver for toolexec's ask webhook (docs/permissions.md#webhook-for-asks): it checks the
// signature and the timestamp, ignores a delivery it has seen (retries keep their id), and prints
// each ask with the link a person opens to answer it. Run it with the secret toolexec signs with:
//   WEBHOOK_SECRET=... PORT=9000 npx tsx examples/ask-webhook-receiver.ts
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const secret = process.env.WEBHOOK_SECRET ?? ''
const seen = new Set<string>()

/** `toolexec-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, within 5 minutes. */
function signatureIsValid(rawBody: string, header: string | undefined): boolean {
  const fields = new Map((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]))
  const timestamp = Number(fields.get('t'))
  const given = Buffer.from(fields.get('v1') ?? '', 'hex')
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300) return false
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest()
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const rawBody = Buffer.concat(chunks).toString('utf8')
    if (!signatureIsValid(rawBody, request.headers['toolexec-signature'] as string | undefined)) {
      console.log('rejected a delivery with a bad signature')
      response.writeHead(401).end()
      return
    }
    // Answer at once; do the work after. A slow answer is retried as a failure.
    response.writeHead(204).end()
    const delivery = JSON.parse(rawBody) as {
      id: string
      type: string
      request_id: string
      ask_url: string
      event: { tool?: string; decision?: string; answered_by?: string }
    }
    if (seen.has(delivery.id)) return
    seen.add(delivery.id)
    if (delivery.type === 'permission.requested')
      console.log(`ask ${delivery.request_id} for ${delivery.event.tool}: ${delivery.ask_url}`)
    else
      console.log(
        `resolved ${delivery.request_id}: ${delivery.event.decision} by ${delivery.event.answered_by ?? 'nobody'}`,
      )
  })
})

server.listen(Number(process.env.PORT ?? 9000), '127.0.0.1', () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`)
})
