import type { TrackedCall } from './tracked-call.js'

/** What is executing right now, kept as counters so scheduling stays O(1) per decision. */
export type ExecutingSet = { count: number; unsafe: number }

/**
 * The scheduling rule of docs/adr/0002-one-scheduler-for-batches-and-streams.md: a safe call may
 * start when nothing runs or only safe calls run (and the cap has room); an unsafe call runs
 * alone. The executor walks its queue in block order and stops at the first call this refuses,
 * so that call is a barrier for every call behind it.
 */
export function canStart(call: Pick<TrackedCall, 'safe'>, executing: ExecutingSet, maxConcurrency: number): boolean {
  if (executing.count === 0) return true
  return call.safe && executing.count < maxConcurrency && executing.unsafe === 0
}

/** The calls still queued; calls start in block order, so none before `from` is. */
export function countQueued(calls: readonly Pick<TrackedCall, 'status'>[], from: number): number {
  let queued = 0
  for (let index = from; index < calls.length; index++) if (calls[index]?.status === 'queued') queued++
  return queued
}
