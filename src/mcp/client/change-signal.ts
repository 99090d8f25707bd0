/**
 * Lets callers wait for "something changed" (a status moved) without polling: `wait` resolves
 * on the next `notify` or when `signal` aborts, whichever is first.
 */
export function createChangeSignal() {
  const waiters = new Set<() => void>()
  return {
    wait(signal: AbortSignal): Promise<void> {
      return new Promise((resolve) => {
        const wake = () => {
          waiters.delete(wake)
          signal.removeEventListener('abort', wake)
          resolve()
        }
        waiters.add(wake)
        signal.addEventListener('abort', wake, { once: true })
      })
    },
    notify(): void {
      for (const wake of [...waiters]) wake()
    },
  }
}
