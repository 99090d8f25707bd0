import type { RunEvent } from '../../events/run-event.js'
import { type ToolResultBlock, toolResult } from '../../messages/content-blocks.js'
import { lostExecutorMessage } from '../../messages/tool-error-messages.js'
import type { HeldRun } from '../../stores/run-coordination.js'
import type { Stores } from '../../stores/stores.js'

/**
 * Finishes the record of a run whose instance died (docs/adr/0112-what-a-lost-run-says.md):
 * every call without a result gets one saying it may have had partial effects, the run ends as
 * `lost`, its session is freed, and subscribers get the remaining events and run.completed.
 * The event log is the truth about which results went out: a result is never given twice.
 */
export async function closeLostRun(
  stores: Stores,
  { runId, tenant }: HeldRun,
  options: {
    runTtlMs: number
    now: () => number
    /** Each call given the lost-call text (the audit trail's `lost`). */
    onLost?: (call: { toolUseId: string; tool: string; sessionId: string; input: unknown }) => void
  },
): Promise<boolean> {
  const record = await stores.runs.get(tenant, runId)
  if (record?.status !== 'running') return false
  const events = await stores.events.read(runId, 0)
  if (events.some((event) => event.type === 'run.completed')) return false
  const names = new Map<string, string>()
  const results: ToolResultBlock[] = []
  const order = [...record.toolUseIds]
  for (const event of events) collect(event, names, results, order)
  const answered = new Set(results.map((result) => result.tool_use_id))
  // A call that finished but waited behind a running one gets its own result (docs/adr/0238).
  const held = await stores.runs.heldResults(runId)
  for (const toolUseId of order.filter((id) => !answered.has(id))) {
    const kept = held.get(toolUseId)
    const tool = names.get(toolUseId) ?? 'the call'
    if (!kept) {
      // The input is known where the record kept what a survivor needs (docs/adr/0243).
      const input = record.resume?.blocks.find((block) => block.id === toolUseId)?.input ?? null
      options.onLost?.({ toolUseId, tool, sessionId: record.sessionId, input })
    }
    const result = kept ?? toolResult(toolUseId, lostExecutorMessage(tool), true)
    results.push(result)
    await stores.events.append(runId, { type: 'tool.result', tool_use_id: toolUseId, result })
  }
  const finishedAt = options.now()
  await stores.runs.complete(runId, {
    status: 'lost',
    results,
    blobs: record.blobs,
    finishedAt: new Date(finishedAt).toISOString(),
    expiresAt: finishedAt + options.runTtlMs,
  })
  await stores.sessions.release(tenant, record.sessionId, runId, undefined, finishedAt)
  await stores.events.append(runId, { type: 'run.completed', status: 'lost' })
  return true
}

function collect(event: RunEvent, names: Map<string, string>, results: ToolResultBlock[], order: string[]): void {
  if (event.type === 'tool.queued') {
    names.set(event.tool_use_id, event.name)
    if (!order.includes(event.tool_use_id)) order.push(event.tool_use_id)
  }
  if (event.type === 'tool.result') results.push(event.result)
}
