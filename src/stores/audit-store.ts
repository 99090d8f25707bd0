/**
 * The audit trail's records (docs/audit.md, docs/adr/0245-audit-trail.md): one per permission
 * decision and one per finished call, append-only, kept for TOOLEXEC_AUDIT_TTL_MS whatever
 * becomes of the run. Field names are the API's.
 */
export type AuditSource = {
  type: 'rule' | 'mode' | 'hook' | 'tool' | 'default' | 'answer' | 'timeout' | 'cancel' | 'no_approver' | 'bound'
  rule?: string
  mode?: string
  reason?: string
  /** The name of the key that answered (never the key). */
  key_name?: string
  /** How the answer came: `mcp_input_request`, a `/mcp` client's user (docs/adr/0353); absent: the run's API. */
  via?: 'mcp_input_request'
  always?: boolean
  edited_input?: boolean
}

/** What an admin did to a secret (docs/adr/0333-secrets-api.md): its name and who, never its value. */
export type AuditSecretChange = {
  name: string
  action: 'created' | 'updated' | 'deleted'
  /** The name of the key that did it (never the key). */
  key_name: string
}

export type AuditEntry = {
  ts: string
  /** `secret` records leave the call fields (session, run, tool use, tool) empty. */
  kind: 'decision' | 'call' | 'secret'
  tenant: string
  session_id: string
  run_id: string
  tool_use_id: string
  tool: string
  /** sha256 of the input's canonical JSON. */
  input_sha256: string
  /** Only with TOOLEXEC_AUDIT_INPUTS=true, redacted. */
  input?: unknown
  decision?: 'allow' | 'deny'
  source?: AuditSource
  outcome?: 'ok' | 'error' | 'denied' | 'cancelled' | 'lost'
  duration_ms?: number
  secret?: AuditSecretChange
}

/** A stored entry; `id` orders records (newer ids sort after older ones) and is the cursor. */
export type AuditRecord = AuditEntry & { id: string }

export type AuditQuery = {
  tenant: string
  runId?: string
  sessionId?: string
  tool?: string
  kind?: AuditEntry['kind']
  decision?: AuditEntry['decision']
  outcome?: AuditEntry['outcome']
  after?: number
  before?: number
  /** The id of the last record of the previous page. */
  cursor?: string
  limit: number
}

export type AuditPage = { records: AuditRecord[]; next?: string }

export interface AuditStore {
  append(entries: readonly AuditEntry[]): Promise<void>
  /** Newest first. */
  list(query: AuditQuery): Promise<AuditPage>
}

/** Whether a record passes the query's filters (both backends apply the same test). */
export function matchesAuditQuery(record: AuditEntry, query: AuditQuery): boolean {
  if (query.runId !== undefined && record.run_id !== query.runId) return false
  if (query.sessionId !== undefined && record.session_id !== query.sessionId) return false
  if (query.tool !== undefined && record.tool !== query.tool) return false
  if (query.kind !== undefined && record.kind !== query.kind) return false
  if (query.decision !== undefined && record.decision !== query.decision) return false
  if (query.outcome !== undefined && record.outcome !== query.outcome) return false
  const ts = Date.parse(record.ts)
  if (query.after !== undefined && ts <= query.after) return false
  if (query.before !== undefined && ts >= query.before) return false
  return true
}
