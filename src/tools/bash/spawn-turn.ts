import { setImmediate as nextTurn } from 'node:timers/promises'

let queue: Promise<void> = Promise.resolve()

/**
 * Resolves when it is this caller's turn to spawn: one spawn per event-loop turn. A spawn forks
 * the whole service (milliseconds for a large heap) and blocks the event loop while it does;
 * a burst of admitted runs spawning in one turn stalled /healthz for hundreds of milliseconds.
 * Taking turns lets requests and I/O in between each spawn
 * (docs/adr/0121-spawn-and-reap-off-the-event-loop.md).
 */
export function spawnTurn(): Promise<void> {
  const turn = queue.then(() => nextTurn())
  queue = turn
  return turn
}
