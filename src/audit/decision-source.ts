import type { AuditSource } from '../stores/audit-store.js'
import type { PermissionDecisionReason } from '../tool/permission-result.js'

const ENDINGS: Record<string, AuditSource['type']> = {
  timeout: 'timeout',
  cancelled: 'cancel',
  no_approver: 'no_approver',
  prompt_failed: 'no_approver',
  waiting_bound: 'bound',
}

/** Where a permission decision came from, as the audit trail says it (docs/audit.md#sources). */
export function decisionSourceOf(reason: PermissionDecisionReason | undefined): AuditSource {
  switch (reason?.type) {
    case 'rule':
      return { type: 'rule', rule: reason.rule }
    case 'mode':
      return { type: 'mode', mode: reason.mode }
    case 'hook':
      return reason.reason ? { type: 'hook', reason: reason.reason } : { type: 'hook' }
    case 'tool':
      return { type: 'tool', reason: reason.reason }
    case 'user': {
      const ended = reason.ended ?? 'answer'
      if (ended !== 'answer') return { type: ENDINGS[ended] ?? 'default' }
      return {
        type: 'answer',
        ...(reason.by === undefined ? {} : { key_name: reason.by }),
        ...(reason.via === undefined ? {} : { via: reason.via }),
        ...(reason.always ? { always: true } : {}),
        ...(reason.edited ? { edited_input: true } : {}),
      }
    }
    case 'other':
      return { type: 'default', reason: reason.reason }
    default:
      return { type: 'default' }
  }
}
