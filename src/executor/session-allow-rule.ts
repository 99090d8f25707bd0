import { type RulesBySource, updatePermissionContext } from '../tool/permission-context.js'
import type { SessionContext } from './session-context.js'

/**
 * "Allow always for this session": the session context with one more allow rule of source
 * `session`. The calls after the answer see it, and the session keeps it when the run gives its
 * context back (docs/adr/0242-asks-a-person-can-judge.md).
 */
export function withSessionAllowRule(session: SessionContext, rule: string): SessionContext {
  const context = session.permissionContext
  const rules = context.alwaysAllowRules
  return {
    ...session,
    permissionContext: updatePermissionContext(context, {
      alwaysAllowRules: { ...(rules as RulesBySource), session: [...(rules.session ?? []), rule] },
    }),
  }
}
