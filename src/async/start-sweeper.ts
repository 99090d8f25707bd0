/**
 * Runs `sweep` every `intervalMs` and returns the function that stops it. A tick is skipped while
 * the previous sweep is still running, so a slow disk never piles sweeps up; a failed sweep goes
 * to `onError` and the next tick tries again. The timer is unref'd: it never keeps the process alive.
 */
export function startSweeper(sweep: () => unknown, intervalMs: number, onError: (error: unknown) => void): () => void {
  if (!(intervalMs > 0)) throw new TypeError(`Expected \`intervalMs\` to be a positive number, got ${intervalMs}`)
  let sweeping = false
  const timer = setInterval(() => {
    if (sweeping) return
    sweeping = true
    Promise.resolve()
      .then(sweep)
      .catch(onError)
      .finally(() => {
        sweeping = false
      })
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
