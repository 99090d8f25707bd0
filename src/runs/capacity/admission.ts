import { ApiError } from '../../errors/api-error.js'

export type AdmissionLimits = {
  /** Runs not yet completed, on the whole instance and per tenant. */
  maxOpenRuns: number
  maxOpenRunsPerTenant: number
  /** Calls admitted and not yet answered (queued or executing), on the instance and per tenant. */
  maxCallsInFlight: number
  maxCallsInFlightPerTenant: number
  /** Asks waiting for a person, on the instance and per tenant: their own bound (docs/adr/0241). */
  maxWaitingAsks: number
  maxWaitingAsksPerTenant: number
}

/** Seconds a refused client waits before it tries again (the `Retry-After` header). */
export const RETRY_AFTER_SECONDS = 1

/**
 * How long a request refused for capacity waits before its answer: a client that ignores
 * `Retry-After` and retries at once can refuse itself only this often per connection, so a flood
 * of refusals cannot keep the event loop busy and `/healthz` waiting
 * (docs/adr/0182-capacity-refusals-are-paced.md).
 */
export const REFUSAL_PACE_MS = 50

/** What an admitted run holds until it ends. */
export type AdmissionTicket = {
  /** One of the run's calls got its result: its place is free again. */
  callAnswered(): void
  /**
   * One of the run's calls waits for an answer (true) or goes on (false). A waiting call holds
   * no place among the calls in flight, and a run whose every open call waits holds no place
   * among the open runs. False: the bound on waiting asks is reached, the ask is refused.
   */
  waiting(waiting: boolean): boolean
  /** The run ended: everything it still holds is freed. Idempotent. */
  release(): void
}

type Holdings = { runs: number; calls: number; asks: number }

/**
 * A refusal is an answer, not a fault: built without a stack trace, whose capture was a tenth of
 * the event loop's time under a burst of refusals (docs/adr/0161-refusals-are-not-logged-as-faults.md).
 */
function refusal(...args: ConstructorParameters<typeof ApiError>): ApiError {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new ApiError(...args)
  } finally {
    Error.stackTraceLimit = limit
  }
}

/**
 * Bounded admission of runs (docs/adr/0120-admission-control.md): a run is refused at once
 * rather than queued when the instance is full (503) or its tenant is over its share (429),
 * both with `Retry-After`. Nothing waits in a queue here: what is admitted is bounded by the caps.
 * A run alone is admitted whatever its block count (TOOLEXEC_MAX_BLOCKS_PER_RUN bounds it).
 */
export function createAdmission(limits: AdmissionLimits) {
  const total: Holdings = { runs: 0, calls: 0, asks: 0 }
  const byTenant = new Map<string, Holdings>()
  let refusedTenant = 0
  let refusedInstance = 0
  let refusedAsks = 0

  const over = (held: Holdings, calls: number, maxRuns: number, maxCalls: number) =>
    held.runs >= maxRuns || (held.calls > 0 && held.calls + calls > maxCalls)

  /** Throws the refusal a run of `calls` calls would get now. */
  function refuseIfFull(held: Holdings, calls: number): void {
    if (over(total, calls, limits.maxOpenRuns, limits.maxCallsInFlight)) {
      refusedInstance++
      throw refusal(
        'server_at_capacity',
        `The server is at capacity (${total.runs} open runs, ${total.calls} calls in flight): retry after ${RETRY_AFTER_SECONDS} s`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      )
    }
    if (over(held, calls, limits.maxOpenRunsPerTenant, limits.maxCallsInFlightPerTenant)) {
      refusedTenant++
      throw refusal(
        'tenant_over_capacity',
        `This tenant has ${held.runs} open runs and ${held.calls} calls in flight, its share of the server: retry after ${RETRY_AFTER_SECONDS} s`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      )
    }
  }

  function admit(tenant: string, calls: number, options: { force?: boolean } = {}): AdmissionTicket {
    const held = byTenant.get(tenant) ?? { runs: 0, calls: 0, asks: 0 }
    if (!options.force) refuseIfFull(held, calls)
    byTenant.set(tenant, held)
    held.runs++
    held.calls += calls
    total.runs++
    total.calls += calls
    /** Calls not answered yet, of which `asking` wait for a person (they count as asks, not calls). */
    let open = calls
    let asking = 0
    let released = false
    /** Whether the run holds its place among the open runs: not while all its open calls wait. */
    let countsAsRun = true
    const place = () => {
      const should = asking < open
      if (should === countsAsRun) return
      countsAsRun = should
      const change = should ? 1 : -1
      held.runs += change
      total.runs += change
    }
    const free = (count: number) => {
      held.calls -= count
      total.calls -= count
      open -= count
    }
    return {
      callAnswered() {
        if (released || open === 0) return
        // An answered call that was waiting (denied, cancelled) leaves the asks, not the calls.
        free(1)
        place()
      },
      waiting(waiting) {
        if (released) return true
        if (waiting) {
          if (total.asks >= limits.maxWaitingAsks || held.asks >= limits.maxWaitingAsksPerTenant) {
            refusedAsks++
            return false
          }
          asking++
          held.asks++
          total.asks++
          held.calls--
          total.calls--
        } else if (asking > 0) {
          asking--
          held.asks--
          total.asks--
          held.calls++
          total.calls++
        }
        place()
        return true
      },
      release() {
        if (released) return
        released = true
        held.asks -= asking
        total.asks -= asking
        held.calls += asking
        total.calls += asking
        asking = 0
        free(open)
        if (countsAsRun) {
          held.runs--
          total.runs--
        }
        if (held.runs === 0 && held.calls === 0 && held.asks === 0) byTenant.delete(tenant)
      },
    }
  }

  return {
    admit,
    /**
     * Throws the refusal any new run of `tenant` would get now, whatever its size: the request
     * is refused before its body is read (docs/adr/0163-refused-before-the-body-is-read.md).
     */
    refuseNewRun: (tenant: string) => refuseIfFull(byTenant.get(tenant) ?? { runs: 0, calls: 0, asks: 0 }, 0),
    /** What is held now and what was refused since start, for the metrics. */
    stats: () => ({ ...total, refusedTenant, refusedInstance, refusedAsks }),
  }
}

export type Admission = ReturnType<typeof createAdmission>
