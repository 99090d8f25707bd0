import { timeSerially } from './serial-latency.js'
import type { ServerProcess } from './server-process.js'

export async function warmState(service: ServerProcess): Promise<Record<string, number>> {
  const readyz = (await (await fetch(`${service.url}/readyz`)).json()) as { warm_sandboxes?: Record<string, number> }
  return readyz.warm_sandboxes ?? {}
}

/** The start limit in force now and how it is set (docs/adr/0506: it adapts unless pinned). */
export async function startLimit(service: ServerProcess): Promise<{ max_starting?: number; pacing?: string }> {
  const readyz = (await (await fetch(`${service.url}/readyz`)).json()) as {
    processes?: { max_starting?: number; pacing?: string }
  }
  return readyz.processes ?? {}
}

/**
 * Until no warm sandbox is being set up (the last call's refill is done), outside the timed part:
 * a latency sample, the floor's or the service's, never shares the CPU with a refill that a
 * real session, whose calls come seconds apart, would have finished long before (docs/adr/0472).
 */
export async function settled(service: ServerProcess): Promise<void> {
  for (let polls = 0; polls < 200 && (await warmState(service)).starting !== 0; polls += 1)
    await new Promise((resolve) => setTimeout(resolve, 5))
}

/**
 * How long every latency sample waits, once settled, with nothing in flight: the service, the
 * spawner and this process all idle as between a session's calls. Without it a sample came right
 * after the `/readyz` poll and the no-op run of the parts row after a hot loop, at about half a
 * cold run's cost (docs/adr/0485-every-warm-latency-sample-comes-after-the-same-idle.md).
 */
export const IDLE_MS = 6

/** Settled (docs/adr/0472), then idle for IDLE_MS, then one sample of `run`, in ms. */
export async function afterIdle(service: ServerProcess, run: () => Promise<void>): Promise<number[]> {
  await settled(service)
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS))
  return timeSerially(run, 0)
}
