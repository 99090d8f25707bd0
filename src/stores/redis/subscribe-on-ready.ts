import type { Redis } from 'ioredis'

/**
 * On each `ready` of a subscriber connection (its first connect and every reconnect), subscribes
 * to `channels()` and, once Redis has acknowledged it, calls `catchUp`: whatever was published
 * before the subscription took effect is read back instead of missed
 * (docs/adr/0581-a-secret-subscription-reads-back-what-it-missed.md). Nothing happens while
 * `channels()` is empty; a connection that drops again subscribes and catches up at its next `ready`.
 */
export function subscribeOnReady(connection: Redis, channels: () => string[], catchUp: () => unknown): void {
  connection.on('ready', () => {
    const names = channels()
    if (names.length === 0) return
    connection
      .subscribe(...names)
      .then(catchUp)
      .catch(() => undefined)
  })
}
