export type SerialQueue = {
  /**
   * Queues `task`: it starts once every task queued before it has settled, fulfilled or rejected,
   * and its own promise is returned, so the caller decides what its failure means.
   */
  run<T>(task: () => T | PromiseLike<T>): Promise<T>
  /** Settles once every task queued so far has settled; never rejects. */
  idle(): Promise<void>
}

/**
 * One at a time, in the order queued (docs/adr/0080-serial-queue.md). A task starts in the
 * microtask after its predecessor settles, exactly as a hand-written `chain.then(task)` would, so
 * callers keep the event order they had; a failed task never blocks the ones behind it.
 */
export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve()
  const ignore = () => {}
  return {
    run(task) {
      const start = () => task()
      const result = tail.then(start, start)
      tail = result
      return result
    },
    idle() {
      return tail.then(ignore, ignore)
    },
  }
}
