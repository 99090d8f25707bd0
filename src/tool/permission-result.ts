/** What a permission check decides for one call. `passthrough` defers to the general rules. */
export type PermissionDecisionReason =
  | { type: 'rule'; rule: string; source: string }
  | { type: 'mode'; mode: string }
  | { type: 'hook'; hookName?: string | undefined; reason?: string | undefined }
  | { type: 'tool'; reason: string }
  | {
      type: 'user'
      reason?: string
      /** How the ask ended, and for an answer the key's name and what it said (the audit trail's source). */
      ended?: 'answer' | 'timeout' | 'cancelled' | 'no_approver' | 'prompt_failed' | 'waiting_bound'
      by?: string
      /** Answered through an MCP input request rather than the run's API (docs/adr/0353). */
      via?: 'mcp_input_request'
      always?: boolean
      edited?: boolean
    }
  | { type: 'other'; reason: string }

export type PermissionAllow = {
  behavior: 'allow'
  updatedInput?: Record<string, unknown>
  decisionReason?: PermissionDecisionReason | undefined
}

export type PermissionDeny = {
  behavior: 'deny'
  message: string
  decisionReason?: PermissionDecisionReason | undefined
}

export type PermissionAsk = {
  behavior: 'ask'
  message: string
  decisionReason?: PermissionDecisionReason | undefined
  /** The path outside the working directories that made a read ask, for the approver's hints. */
  outsidePath?: string
}

export type PermissionPassthrough = {
  behavior: 'passthrough'
  message: string
}

export type PermissionResult = PermissionAllow | PermissionDeny | PermissionAsk | PermissionPassthrough

/** The final decision after rules, hooks and (possibly) an approver over the wire. */
export type PermissionDecision = PermissionAllow | PermissionDeny
