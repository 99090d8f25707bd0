import type { RunEventBody } from '../events/run-event.js'
import type { RunOutcome } from '../executor/run-executor-types.js'
import type { Logger } from '../logging/logger.js'
import { type ToolResultBlock, toolResult } from '../messages/content-blocks.js'
import { pipelineFaultMessage } from '../messages/tool-error-messages.js'
import type { SessionService } from '../sessions/session-service.js'
import type { RunRecord } from '../stores/run-store.js'
import type { SessionRecord } from '../stores/session-store.js'
import type { Stores } from '../stores/stores.js'
import { warmSandboxes } from '../tools/bash/warm-sandboxes.js'
import type { RunEventWriter } from './run-event-writer.js'

export type FinishingRun = {
  record: RunRecord
  session: SessionRecord
  /** The session was made for this run alone: it ends with the run (docs/adr/0125-ephemeral-sessions-end-with-their-run.md). */
  ephemeralSession: boolean
  writer: RunEventWriter
  stores: Stores
  sessions: SessionService
  runTtlMs: number
  now: () => number
  logger: Logger
}

/**
 * The run is over: once its events are stored, its final record is written and its session given
 * back (side by side: one write on Redis), and only then is run.completed stored, so whoever sees
 * it may read the results or start the next run on the session at once.
 */
export async function finishRun(
  run: FinishingRun,
  outcome: RunOutcome,
  completion: RunEventBody,
  toolUseIds: readonly string[],
): Promise<RunRecord> {
  const { record, session, writer, sessions } = run
  await writer.settled()
  const finishedAt = run.now()
  const final = {
    status: outcome.status,
    results: outcome.results,
    blobs: outcome.blobs,
    finishedAt: new Date(finishedAt).toISOString(),
    expiresAt: finishedAt + run.runTtlMs,
    ...(outcome.cancelReason === undefined ? {} : { cancelReason: outcome.cancelReason }),
  }
  // A run's own session ends with it, and so do its warm sandboxes (docs/adr/0391).
  if (run.ephemeralSession) warmSandboxes.discardSession({ tenant: record.tenant, sessionId: session.sessionId })
  // The session is given back even if the record fails.
  const ended = await Promise.allSettled([
    run.stores.runs.complete(record.runId, final),
    run.ephemeralSession
      ? sessions.delete(record.tenant, session.sessionId)
      : sessions.release(session, record.runId, outcome.context),
  ])
  const failed = ended.find((result) => result.status === 'rejected')
  if (failed) throw failed.reason
  writer.store(completion)
  await writer.settled()
  run.logger.info({ status: outcome.status, results: outcome.results.length }, 'run finished')
  // The record as just stored, built here rather than read back: only this run's instance
  // writes it, so a read would return the same, one more round trip on Redis
  // (docs/adr/0177-redis-auto-pipelining.md).
  return { ...record, toolUseIds: [...toolUseIds], ...final }
}

/**
 * The executor broke its promise: every block still gets a result (a pipeline fault), and the run
 * completes. `yielded`: the results already out; the missing ones are stored as they are made.
 */
export function recoverOutcome(
  fault: unknown,
  yielded: ToolResultBlock[],
  blocks: ReadonlyMap<string, string>,
  store: (body: RunEventBody) => void,
  context: RunOutcome['context'],
): { outcome: RunOutcome; completion: RunEventBody } {
  const results = [...yielded]
  const answered = new Set(results.map((result) => result.tool_use_id))
  const message = fault instanceof Error ? fault.message : String(fault)
  for (const [id, name] of blocks) {
    if (answered.has(id)) continue
    const result = toolResult(id, pipelineFaultMessage(name, message), true)
    results.push(result)
    store({ type: 'tool.result', tool_use_id: id, result })
  }
  return {
    outcome: { status: 'completed', results, blobs: [], context },
    completion: { type: 'run.completed', status: 'completed' },
  }
}
