import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * `toolexec-signature: t=<unix seconds>,v1=<hex>`: HMAC-SHA256 with the shared secret over
 * `<t>.<raw body>`. The timestamp is signed with the body, so a captured delivery cannot be
 * replayed later than the receiver's tolerance (docs/permissions.md#webhook-for-asks).
 */
export function signWebhook(rawBody: string, secret: string, timestampSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex')
  return `t=${timestampSeconds},v1=${digest}`
}

/** What a receiver checks: the signature over the raw body, and a timestamp within `toleranceSeconds`. */
export function verifyWebhookSignature(
  rawBody: string,
  header: string | undefined,
  secret: string,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]))
  const timestamp = Number(parts.t)
  if (!Number.isInteger(timestamp) || typeof parts.v1 !== 'string') return false
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false
  const expected = Buffer.from(signWebhook(rawBody, secret, timestamp).split('v1=')[1]!, 'hex')
  const given = Buffer.from(parts.v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
