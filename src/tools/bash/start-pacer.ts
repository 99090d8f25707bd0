/** The text of a start cancelled while it waited its turn: the command never ran. */
export class StartCancelledError extends Error {
  constructor() {
    super('Command was aborted before it started.')
    this.name = 'StartCancelledError'
  }
}

type Waiter = { go: () => void; signal: AbortSignal | undefined; onAbort: () => void }

/**
 * At most `limit` process starts under way at once; the others wait in order, none is dropped,
 * and a start whose signal aborts while it waits leaves the queue with StartCancelledError
 * (docs/adr/0301-process-starts-are-paced.md). A start is under way from its turn until `task`
 * settles (the spawner answered: the process exists, or could not start) and then until what
 * `holdUntil` returns settles (a sandbox set up).
 */
export function createStartPacer(initialLimit: number) {
  const checked = (limit: number) => {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`limit must be a positive integer, got ${limit}`)
    return limit
  }
  let limit = checked(initialLimit)
  let starting = 0
  let waits = 0
  const queue: Waiter[] = []

  /** Gives turns to the waiters, first asked first, while fewer than `limit` starts are under way. */
  const admit = () => {
    while (starting < limit) {
      const waiter = queue.shift()
      if (!waiter) return
      waiter.signal?.removeEventListener('abort', waiter.onAbort)
      starting++
      waiter.go()
    }
  }

  const next = () => {
    starting--
    admit()
  }

  const turn = (signal: AbortSignal | undefined): Promise<void> => {
    if (signal?.aborted) return Promise.reject(new StartCancelledError())
    if (starting < limit && queue.length === 0) {
      starting++
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        go: resolve,
        signal,
        onAbort: () => {
          queue.splice(queue.indexOf(waiter), 1)
          reject(new StartCancelledError())
        },
      }
      signal?.addEventListener('abort', waiter.onAbort, { once: true })
      queue.push(waiter)
      waits++
    })
  }

  return {
    /** Starts under way at once at most, now. */
    get limit() {
      return limit
    },
    /**
     * Changes the limit for the turns given from now on (the adaptive pace, docs/adr/0506): a
     * higher one gives turns to waiters at once, a lower one lets the starts under way finish.
     */
    setLimit(next: number) {
      limit = checked(next)
      admit()
    },
    /** Starts under way now. */
    get starting() {
      return starting
    },
    /** Starts waiting for their turn. */
    get queued() {
      return queue.length
    },
    /** Starts that had to wait for their turn, since this pacer was made (the adaptive pace reads it). */
    get waits() {
      return waits
    },
    /**
     * Runs `task` in its turn; rejects with StartCancelledError when `signal` aborts before. The
     * turn lasts until `task` settles, and then until `holdUntil` of its value settles.
     */
    async run<T>(
      task: () => Promise<T>,
      options: { signal?: AbortSignal | undefined; holdUntil?: (value: T) => Promise<unknown> } = {},
    ): Promise<T> {
      await turn(options.signal)
      let value: T
      try {
        value = await task()
      } catch (error) {
        next()
        throw error
      }
      const held = options.holdUntil?.(value)
      if (held) held.then(next, next)
      else next()
      return value
    },
  }
}
