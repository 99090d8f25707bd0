import { APIError } from '@anthropic-ai/sdk'

/** The HTTP status of a failed API call, if the server answered at all. */
export function apiStatusOf(error: unknown): number | undefined {
  return error instanceof APIError && typeof error.status === 'number' ? error.status : undefined
}

/** A refusal that a retry cannot change (4xx but a timeout, a conflict in flight or a rate limit). */
export function isFinalRefusal(error: unknown): boolean {
  const status = apiStatusOf(error)
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
