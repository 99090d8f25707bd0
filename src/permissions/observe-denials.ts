import type { PermissionGate, PermissionRequest } from '../executor/permission-gate.js'

/**
 * The same gate, telling `onDeny` of every denial and its reason (the text the model gets): the
 * service logs and counts denials here, so the plugin that builds the gate only wires.
 */
export function observeDenials(
  gate: PermissionGate,
  onDeny: (request: PermissionRequest, reason: string) => void,
): PermissionGate {
  return {
    decide: async (request) => {
      const decision = await gate.decide(request)
      if (decision.behavior === 'deny') onDeny(request, decision.message)
      return decision
    },
  }
}
