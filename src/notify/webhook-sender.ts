import { randomUUID } from 'node:crypto'
import { signWebhook } from './sign-webhook.js'

export type WebhookSenderOptions = {
  url: string
  secret: string
  /** Per attempt. */
  timeoutMs: number
  maxAttempts: number
  /** The first retry waits about this long, each next one twice as long (with jitter), at most a minute. */
  retryBaseMs: number
  /** Deliveries waiting beyond this drop the oldest (counted). */
  maxQueued?: number
  /** A delivery given up after its last attempt (logged, rate-limited, by the caller). */
  onGiveUp?: (delivery: { id: string; attempts: number; lastError: string }) => void
}

type Delivery = { id: string; body: string; attempts: number }

const MAX_BACKOFF_MS = 60_000

/**
 * Signed POSTs to one URL, at least once each (docs/adr/0246-ask-webhook.md). `deliver` returns at
 * once and never throws: the run that raised the ask never waits for the receiver. Network errors,
 * timeouts, 429 and 5xx are retried with exponential backoff and jitter; other 4xx are not (the
 * receiver refused the delivery). A delivery keeps its id (`toolexec-delivery`) across retries, so
 * receivers deduplicate. Deliveries run one after another, in the order they were made.
 */
export function createWebhookSender(options: WebhookSenderOptions) {
  const queue: Delivery[] = []
  const maxQueued = options.maxQueued ?? 1000
  const stats = { delivered: 0, failed: 0, retried: 0, dropped: 0 }
  let running = false
  let closed = false
  let wake: (() => void) | undefined
  const sleeping = new Set<NodeJS.Timeout>()

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        sleeping.delete(timer)
        resolve()
      }, ms)
      timer.unref?.()
      sleeping.add(timer)
      wake = resolve
    })

  /** Aborts the attempt in flight when the sender closes, so no request outlives the service. */
  let inFlight: AbortController | undefined

  async function attempt(delivery: Delivery): Promise<{ outcome: 'done' | 'retry' | 'refused'; cause: string }> {
    const timestamp = Math.floor(Date.now() / 1000)
    inFlight = new AbortController()
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'toolexec-delivery': delivery.id,
          'toolexec-signature': signWebhook(delivery.body, options.secret, timestamp),
        },
        body: delivery.body,
        signal: AbortSignal.any([inFlight.signal, AbortSignal.timeout(options.timeoutMs)]),
      })
      await response.body?.cancel().catch(() => undefined)
      const cause = `HTTP ${response.status}`
      if (response.ok) return { outcome: 'done', cause }
      return { outcome: response.status === 429 || response.status >= 500 ? 'retry' : 'refused', cause }
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.name) : String(error)
      return { outcome: 'retry', cause }
    } finally {
      inFlight = undefined
    }
  }

  async function run(): Promise<void> {
    running = true
    while (queue.length > 0 && !closed) {
      const delivery = queue[0]!
      delivery.attempts++
      const { outcome, cause } = await attempt(delivery)
      if (outcome === 'retry' && delivery.attempts < options.maxAttempts && !closed) {
        stats.retried++
        const backoff = Math.min(MAX_BACKOFF_MS, options.retryBaseMs * 2 ** (delivery.attempts - 1))
        await sleep(backoff / 2 + Math.random() * (backoff / 2))
        continue
      }
      queue.shift()
      if (outcome === 'done') stats.delivered++
      else {
        stats.failed++
        options.onGiveUp?.({ id: delivery.id, attempts: delivery.attempts, lastError: cause })
      }
    }
    running = false
  }

  return {
    /** Queues one delivery of `payload` (JSON); its id, the same on every retry, is returned. */
    deliver(payload: Record<string, unknown>): string {
      const id = randomUUID()
      if (closed) return id
      if (queue.length >= maxQueued) {
        stats.dropped++
        // The oldest not in flight goes: a receiver that is down for long sees the newest asks.
        // With only the one in flight queued, the new delivery is the one dropped.
        if (queue.length < 2) return id
        queue.splice(1, 1)
      }
      queue.push({ id, body: JSON.stringify({ id, ...payload }), attempts: 0 })
      if (!running) void run()
      return id
    },
    stats: () => ({ ...stats, queued: queue.length }),
    close(): void {
      closed = true
      inFlight?.abort()
      for (const timer of sleeping) clearTimeout(timer)
      wake?.()
    },
  }
}
