import type { RunEvent } from '../../events/run-event.js'
import type { ToolResultBlock, ToolResultContent } from '../../messages/content-blocks.js'
import { lostExecutorMessage } from '../../messages/tool-error-messages.js'
import type { HeldRun } from '../../stores/run-coordination.js'
import type { ResumeSpec, RunRecord } from '../../stores/run-store.js'
import type { Stores } from '../../stores/stores.js'
import type { AdoptedAsk } from '../control/permission-broker.js'

/** What a survivor needs to go on with a run whose instance was lost. */
export type TakeoverPlan = {
  record: RunRecord
  resume: ResumeSpec
  priorResults: ToolResultBlock[]
  settled: Map<string, { content: ToolResultContent; isError: boolean; lost?: boolean }>
  adoptedAsks: Map<string, AdoptedAsk>
  /** Blocks that run (again) here: they had not started, or waited for an answer. */
  rerun: number
}

/**
 * Reads what the event log says of each call of a lost run (docs/adr/0243-taking-over-a-waiting-run.md):
 * a call with a result keeps it and is not given again; a call finished but held behind another
 * keeps its held result; a call waiting for an answer, or not started, runs here; any other call
 * that started may have had effects, and gets the honest lost-call text. Undefined: the run cannot
 * be taken over (streamed, finished, or stored without what resuming needs) and is closed instead.
 */
export async function planTakeover(stores: Stores, { runId, tenant }: HeldRun): Promise<TakeoverPlan | undefined> {
  const record = await stores.runs.get(tenant, runId)
  if (record?.status !== 'running' || !record.resume) return undefined
  const events = await stores.events.read(runId, 0)
  if (events.some((event) => event.type === 'run.completed')) return undefined
  const given = new Map<string, ToolResultBlock>()
  const started = new Set<string>()
  const openAsks = new Map<string, { requestId: string; expiresAt: number }>()
  for (const event of events) collect(event, given, started, openAsks)
  const held = await stores.runs.heldResults(runId)
  const resume = record.resume
  const priorResults: ToolResultBlock[] = []
  const settled: TakeoverPlan['settled'] = new Map()
  const adoptedAsks = new Map<string, AdoptedAsk>()
  let rerun = 0
  for (const block of resume.blocks) {
    const result = given.get(block.id)
    if (result) {
      priorResults.push(result)
      continue
    }
    const kept = held.get(block.id)
    const ask = openAsks.get(block.id)
    if (kept) settled.set(block.id, { content: kept.content ?? '', isError: kept.is_error === true })
    else if (ask) {
      adoptedAsks.set(block.id, ask)
      rerun++
    } else if (started.has(block.id))
      settled.set(block.id, { content: lostExecutorMessage(block.name), isError: true, lost: true })
    else rerun++
  }
  // Only a run that waits for a person is taken over; any other lost run is closed as lost, as
  // before: its client is told at once rather than after its calls run again elsewhere.
  if (adoptedAsks.size === 0) return undefined
  return { record, resume, priorResults, settled, adoptedAsks, rerun }
}

function collect(
  event: RunEvent,
  given: Map<string, ToolResultBlock>,
  started: Set<string>,
  openAsks: Map<string, { requestId: string; expiresAt: number }>,
): void {
  if (event.type === 'tool.result') given.set(event.tool_use_id, event.result)
  else if (event.type === 'tool.started') started.add(event.tool_use_id)
  else if (event.type === 'permission.requested') {
    const expiresAt = event.expires_at === undefined ? Date.now() : Date.parse(event.expires_at)
    openAsks.set(event.tool_use_id, { requestId: event.request_id, expiresAt })
  } else if (event.type === 'permission.resolved') {
    for (const [toolUseId, ask] of openAsks) if (ask.requestId === event.request_id) openAsks.delete(toolUseId)
  }
}
