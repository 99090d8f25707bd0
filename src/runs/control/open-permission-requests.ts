import type { RunEvent } from '../../events/run-event.js'

/** A permission ask that is still waiting for an answer, as GET /v1/runs/{run_id} lists it. */
export type OpenPermissionRequest = Omit<
  Extract<RunEvent, { type: 'permission.requested' }>,
  'type' | 'seq' | 'run_id' | 'ts'
>

/**
 * The asks of a run's event log that no `permission.resolved` answered yet, in the order they were
 * made, so a client that only polls can answer them (docs/adr/0132-polling-clients-see-permission-asks.md).
 */
export function openPermissionRequests(events: readonly RunEvent[]): OpenPermissionRequest[] {
  const open = new Map<string, OpenPermissionRequest>()
  for (const event of events) {
    if (event.type === 'permission.requested') {
      const { type: _type, seq: _seq, run_id: _runId, ts: _ts, ...request } = event
      open.set(event.request_id, request)
    } else if (event.type === 'permission.resolved') open.delete(event.request_id)
  }
  return [...open.values()]
}

/** A permission ask that ended, as GET /v1/runs/{run_id} lists it: how, and which key answered. */
export type ResolvedPermission = Omit<
  Extract<RunEvent, { type: 'permission.resolved' }>,
  'type' | 'seq' | 'run_id' | 'ts'
>

/** The `permission.resolved` events of a run's log, in order. */
export function resolvedPermissions(events: readonly RunEvent[]): ResolvedPermission[] {
  const resolved: ResolvedPermission[] = []
  for (const event of events) {
    if (event.type !== 'permission.resolved') continue
    const { type: _type, seq: _seq, run_id: _runId, ts: _ts, ...rest } = event
    resolved.push(rest)
  }
  return resolved
}
