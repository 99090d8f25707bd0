import fp from 'fastify-plugin'
import { askUrl } from '../src/notify/ask-url.js'
import { createWebhookSender } from '../src/notify/webhook-sender.js'

/** One warning per this many milliseconds at most: a receiver that is down must not fill the log. */
const GIVE_UP_LOG_INTERVAL_MS = 60_000

/**
 * With TOOLEXEC_ASK_WEBHOOK_URL: every `permission.requested` and `permission.resolved` of the runs
 * executing here is POSTed, signed, to that URL (docs/permissions.md#webhook-for-asks), so a chat
 * bot or a pager can bring a person to the ask. Delivery never touches the run.
 */
export const askWebhookPlugin = fp(
  async (app) => {
    const { askWebhook, publicUrl } = app.config
    if (!askWebhook) return
    let lastWarning = 0
    let quiet = 0
    const sender = createWebhookSender({
      ...askWebhook,
      onGiveUp: (delivery) => {
        const now = Date.now()
        if (now - lastWarning < GIVE_UP_LOG_INTERVAL_MS) {
          quiet++
          return
        }
        lastWarning = now
        app.log.warn(
          { delivery: delivery.id, attempts: delivery.attempts, alsoGivenUp: quiet },
          'ask webhook delivery given up',
        )
        quiet = 0
      },
    })
    const stop = app.runManager.onEvent((event, tenant) => {
      if (event.type !== 'permission.requested' && event.type !== 'permission.resolved') return
      sender.deliver({
        type: event.type,
        created_at: new Date().toISOString(),
        tenant,
        run_id: event.run_id,
        request_id: event.request_id,
        ask_url: askUrl(publicUrl, event.run_id, event.request_id),
        event,
      })
    })
    app.decorate('askWebhook', sender)
    app.addHook('onClose', async () => {
      stop()
      sender.close()
    })
  },
  { name: 'ask-webhook', dependencies: ['config', 'run-manager'] },
)

declare module 'fastify' {
  interface FastifyInstance {
    /** Set with TOOLEXEC_ASK_WEBHOOK_URL (its stats feed the metrics). */
    askWebhook?: ReturnType<typeof createWebhookSender>
  }
}
