import type { PermissionGate, PermissionRequest } from '../executor/permission-gate.js'
import type { PermissionDecision } from '../tool/permission-result.js'

/**
 * The same gate, telling `onDecision` of every decision: the service logs and counts denials and
 * writes the audit trail here, so the plugin that builds the gate only wires.
 */
export function observeDecisions(
  gate: PermissionGate,
  onDecision: (request: PermissionRequest, decision: PermissionDecision) => void,
): PermissionGate {
  return {
    decide: async (request) => {
      const decision = await gate.decide(request)
      onDecision(request, decision)
      return decision
    },
  }
}
