import type { RunEvent } from '../events/run-event.js'
import type { Logger } from '../logging/logger.js'
import type { AdmissionTicket } from './capacity/admission.js'
import type { LiveRun, LiveRunDependencies } from './live-run.js'

/**
 * What a run started here and a run taken over here share (start-run.ts, lost/resume-run.ts):
 * its admission ticket follows its calls, and once it is over it leaves the live runs, frees
 * its admission and gives up its lease.
 */
export function admittedRun(
  launch: LiveRunDependencies,
  ticket: AdmissionTicket | undefined,
  release: { live: Map<string, LiveRun>; hold: (() => Promise<void>) | undefined; logger: Logger },
) {
  return {
    /** The launch dependencies with `observe` freeing a call's admission slot at its stored tool.result (docs/adr/0120). */
    dependencies: {
      ...launch,
      observe: (event: RunEvent, tenant: string) => {
        if (event.type === 'tool.result') ticket?.callAnswered()
        launch.observe(event, tenant)
      },
    },
    /** Waiting calls hold no admission slot (docs/adr/0241). */
    asks: ticket ? { onAskWaiting: (waiting: boolean) => ticket.waiting(waiting) } : {},
    /** The run is live here until it finishes. */
    track(run: LiveRun): void {
      release.live.set(run.runId, run)
      void run.finished.finally(() => {
        release.live.delete(run.runId)
        ticket?.release()
        release
          .hold?.()
          .catch((error: unknown) => release.logger.error({ err: error }, 'releasing the run lease failed'))
      })
    },
  }
}
