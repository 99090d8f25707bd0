import type { LiveRun } from './live-run.js'

/**
 * Lets the runs executing here finish for up to `graceMs`, then cancels the rest as a shutdown
 * (their calls still get results that say the service stopped, docs/adr/0288) and waits for their final records. The caller has stopped taking new runs.
 */
export async function drainRuns(live: ReadonlyMap<string, LiveRun>, graceMs: number): Promise<void> {
  const runs = () => [...live.values()]
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise((resolve) => {
    timer = setTimeout(resolve, graceMs)
  })
  await Promise.race([Promise.allSettled(runs().map((run) => run.finished)), deadline])
  clearTimeout(timer)
  for (const run of runs()) {
    run.cancel('shutdown')
    run.endInput()
  }
  await Promise.allSettled(runs().map((run) => run.finished))
}
