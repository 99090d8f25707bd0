/**
 * A protocol double of Claude Managed Agents' self-hosted work queue and session events, for tests and
 * benches of workers (the SDK's EnvironmentWorker, toolexec's worker). A real HTTP server on a free port;
 * point `new Anthropic({ baseURL: double.baseURL, apiKey: double.apiKey })` at it. Written from
 * @anthropic-ai/sdk's types (resources/beta/environments/work, resources/beta/sessions/events) and its
 * documented behaviours; what it models and what it cannot: docs/managed-agents-double.md, ADRs 0415–0417.
 *
 * ```ts
 * const double = await startManagedAgentsDouble({ leaseTtlSeconds: 60 })   // close() in afterEach
 *   // also: issueSecrets (default true), leasesLapse (default true; false: only expireLease lapses a lease)
 * const env = double.createEnvironment()                 // { id: 'env_…', key: 'sk-ant-envkey_…' }
 * const session = double.openSession(env.id, {           // emits turn 1 at once and queues a work item
 *   turns: [[{ name: 'read', input: { path: 'a' } }, { name: 'bash', input: { command: 'rm x' }, permission: 'ask' }]],
 *   end: 'terminate',                                    // default; 'end_turn' only idles after the last turn
 * })
 * const [readId, bashId] = session.turnIds[0]
 * await session.waitForEvent((e) => e.type === 'session.status_idle')
 * session.confirm(bashId, 'allow')                       // or 'deny', with an optional deny message
 * session.interrupt()                                    // user.interrupt: open calls end `interrupted`
 * session.terminate()
 * double.continueSession(session.id, [[{ name: 'probe' }]])   // after end: 'end_turn'; new work item if stopped
 * await session.waitForResult(readId)                    // the accepted user.tool_result event
 * await session.waitForEnd()                             // every turn resolved (or interrupted)
 * session.resultsFor(readId)                             // accepted results: exactly one is the rule
 * session.refusedResults()                               // results the double refused, with its 400 message
 * session.attempts                                       // every result sent, in order (`sequence`)
 * session.calls.get(id)?.status                          // open | awaiting_confirmation | confirmed | denied | answered | interrupted
 *
 * const work = double.workFor(session.id)                // WorkItem: state, deliveries, lastHeartbeat, ttlSeconds…
 * await double.waitForWork(work.id, (w) => w.state === 'active')
 * double.expireLease(work.id)                            // lapse now: back to the queue, redelivered on next poll
 * double.requestStop(work.id)                            // heartbeats answer state 'stopping', lease_extended false
 * double.loseHeartbeatResponses(work.id)                 // next heartbeat applied but its answer dropped
 * double.dropStreams(session.id)                         // cut the worker's SSE stream (it reconnects)
 * double.enqueueHealthcheck(env.id)
 * double.requests / double.unhandled                     // request log; calls no route of the double knows
 * await double.waitForRequest((r) => r.path.endsWith('/work/poll'))   // e.g. the worker is polling
 *
 * probeTools(): tools `probe` (answers at once), `gated` (waits for openGate() or the worker's abort),
 * `silent` (empty text); runs logged (`runsOf(id)`, `started(id, n)`, `ended(id, n)`).
 * startReferenceWorker(double, { environment, workdir, tools? }): the SDK's EnvironmentWorker, in-process.
 * ```
 *
 * Rules it enforces: `anthropic-beta: managed-agents-2026-04-01` on every call (400 without); credentials
 * (environment key for the queue, the per-item `sessions_token` from the work `secret`, or the API key);
 * `block_ms` 1–999; `reclaim_older_than_ms` (default 5000) for polled-but-unacknowledged items; a heartbeat
 * with a stale `expected_last_heartbeat` → 412 `heartbeat_precondition_failed` with `current_state`
 * (BetaHeartbeatPreconditionFailedError in the SDK); stop of a stopped item → 409; a `user.tool_result`
 * for an `ask` call before its allow confirmation → 400; a result with no content or an empty/whitespace
 * text block → 400; a second result for one call → 400; a result for a denied call → 400.
 */
export type { ManagedAgentsDouble, ManagedAgentsDoubleOptions, RequestRecord } from './managed-agents-double.js'
export { startManagedAgentsDouble } from './managed-agents-double.js'
export type { ProbeRun, ProbeTools } from './probe-tools.js'
export { probeTools } from './probe-tools.js'
export type { ReferenceWorker, ReferenceWorkerOptions } from './reference-worker.js'
export { startReferenceWorker } from './reference-worker.js'
export type { ResultAttempt } from './result-attempts.js'
export type { ScriptedCall, ScriptedSession, SessionEvent, SessionScript } from './scripted-session.js'
export type { CallRecord, CallStatus, Permission } from './sent-event-rules.js'
export { MANAGED_AGENTS_BETA } from './wire.js'
export type { WorkItem, WorkState } from './work-queue.js'
