import type { LaunchedCommand } from './launched-command.js'

/**
 * A start that has not announced itself within this long (a sandbox stuck in its setup) stops
 * holding a turn, so that it cannot hold up every later start until its timeout
 * (docs/adr/0301-process-starts-are-paced.md).
 */
const START_HOLD_MAX_MS = 5_000

/**
 * How long a launched command holds its start turn: until it announced its start, or
 * START_HOLD_MAX_MS at most (the `holdUntil` of start-pacer.ts).
 */
export function holdTurnUntilStarted(launched: LaunchedCommand): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, START_HOLD_MAX_MS)
    timer.unref()
    launched.started.then(() => {
      clearTimeout(timer)
      resolve()
    })
  })
}
