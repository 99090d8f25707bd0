/** A promise with its settle functions outside (Promise.withResolvers arrived in Node 22; we support 20). */
export function deferred<T>() {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve
    reject = onReject
  })
  // Nobody may ever wait on it: an unobserved rejection must not crash the process.
  promise.catch(() => {})
  return { promise, resolve, reject }
}
