// Calls that wait until the test opens their key: the one gate behind the route tests' `Gate` tool
// and the executor tests' gate tools, so timing is decided by the test, never by a sleep.
import { deferred } from '../../src/async/deferred.js'

export function createGates() {
  const gates = new Map<string, ReturnType<typeof deferred<string>>>()
  const startedWaiters = new Map<string, Array<() => void>>()
  /** Keys in the order their calls started. */
  const started: string[] = []
  let running = 0
  let maxRunning = 0

  const gateOf = (key: string) => {
    let gate = gates.get(key)
    if (!gate) {
      gate = deferred<string>()
      gates.set(key, gate)
    }
    return gate
  }

  /** Waits until `key` is opened (its text) or failed, or `signal` aborts (an `aborted` error). */
  async function pass(key: string, signal: AbortSignal): Promise<string> {
    started.push(key)
    for (const wake of startedWaiters.get(key) ?? []) wake()
    running++
    maxRunning = Math.max(maxRunning, running)
    try {
      const aborted = new Promise<never>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
      })
      return await Promise.race([gateOf(key).promise, aborted])
    } finally {
      running--
    }
  }

  return {
    pass,
    open: (key: string, text: string) => gateOf(key).resolve(text),
    fail: (key: string, error: unknown) => gateOf(key).reject(error),
    started,
    /** Resolves once a call with `key` has started. */
    whenStarted: (key: string) =>
      started.includes(key)
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            startedWaiters.set(key, [...(startedWaiters.get(key) ?? []), resolve])
          }),
    running: () => running,
    maxRunning: () => maxRunning,
  }
}
