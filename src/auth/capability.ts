import { ApiError } from '../errors/api-error.js'
import type { KeyRole } from './api-key.js'

/**
 * What a request needs of its key: `read` (any role), `run` (start runs, change sessions' state,
 * /mcp), `approve` (answer asks, change a session's rules) or `admin` (the deployment's secrets,
 * docs/adr/0333-secrets-api.md). docs/adr/0240-key-roles.md.
 */
export type Capability = 'read' | 'run' | 'approve' | 'admin'

const GRANTS: Record<KeyRole, ReadonlySet<Capability>> = {
  runner: new Set(['read', 'run']),
  approver: new Set(['read', 'approve']),
  admin: new Set(['read', 'run', 'approve', 'admin']),
}

const WHAT: Record<Exclude<Capability, 'read'>, string> = {
  run: 'start runs or change a session (runner or admin keys do)',
  approve: "answer permission asks or change a session's rules (approver or admin keys do)",
  admin: 'manage secrets (admin keys do)',
}

/** Who is calling, as the auth plugin found it. */
export type Caller = { readonly tenant: string; readonly keyName: string; readonly role: KeyRole }

/** Whether a key of `role` may do what `capability` covers. */
export const roleCan = (role: KeyRole, capability: Capability): boolean => GRANTS[role].has(capability)

/** Throws the 403 a caller without `capability` gets; the message names the key and its role, never the key. */
export function requireCapability(caller: Caller, capability: Capability): void {
  if (GRANTS[caller.role].has(capability)) return
  throw new ApiError(
    'role_forbidden',
    `The key "${caller.keyName}" has the ${caller.role} role: it cannot ${WHAT[capability as Exclude<Capability, 'read'>]}`,
  )
}
