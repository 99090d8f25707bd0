import type { App } from '../../app.js'
import type { RunEvent } from '../../src/events/run-event.js'

/** Resolves with every event of the run once `run.completed` has been stored (no polling). */
export async function runCompleted(app: App, runId: string, tenant = 'default'): Promise<RunEvent[]> {
  const events: RunEvent[] = []
  let stop: (() => void) | undefined
  const done = new Promise<void>((resolve) => {
    app.runManager
      .subscribe(tenant, runId, 0, (event) => {
        events.push(event)
        if (event.type === 'run.completed') resolve()
      })
      .then((unsubscribe) => {
        stop = unsubscribe
      })
  })
  await done
  stop?.()
  return events
}
