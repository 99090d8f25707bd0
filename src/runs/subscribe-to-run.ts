import type { RunEvent } from '../events/run-event.js'
import type { EventStore } from '../stores/event-store.js'

/**
 * Every event of a run after `afterSeq`, then each new one (the caller checked the tenant). `onEnd`
 * is called when the run is over and this subscriber will get nothing more: it already had
 * run.completed (a reconnect with `after` at the end), or `after` lies past the run's end.
 */
export async function subscribeToRun(
  events: EventStore,
  runId: string,
  afterSeq: number,
  listener: (event: RunEvent) => void,
  onEnd?: () => void,
): Promise<() => void> {
  let ended = false
  let seen = false
  const end = () => {
    if (ended) return
    ended = true
    onEnd?.()
  }
  // From one before `afterSeq`, so a run.completed at exactly `afterSeq` is seen (and not delivered).
  const stop = await events.subscribe(runId, Math.max(0, afterSeq - 1), (event) => {
    seen = true
    if (event.seq > afterSeq) listener(event)
    else if (event.type === 'run.completed') end()
  })
  // Nothing at or after `afterSeq` yet: either the run goes on, or `after` is past its end.
  if (!seen && afterSeq > 0) {
    const last = (await events.read(runId, 0)).at(-1)
    if (last?.type === 'run.completed' && last.seq < afterSeq) end()
  }
  return stop
}
