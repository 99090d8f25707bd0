/**
 * Every text the permission system puts in front of a model or an approver. Deny texts become
 * the tool_result verbatim (docs/design.md §4 step 6), so they are part of the API: docs/permissions.md
 * lists each one and a test keeps the two in step.
 */
export const permissionMessages = {
  /** A deny rule matched (docs/design.md §7, exact). */
  deniedByRule: (name: string) => `Permission to use ${name} has been denied.`,
  deniedByHook: (name: string, reason?: string) =>
    reason
      ? `Permission to use ${name} has been denied by a PreToolUse hook: ${reason}`
      : `Permission to use ${name} has been denied by a PreToolUse hook.`,
  deniedInPlanMode: (name: string) =>
    `Permission to use ${name} has been denied: the session is in plan mode, which only allows read-only calls.`,
  deniedDontAsk: (name: string) =>
    `Permission to use ${name} has been denied: this call needs approval and the session's permission mode is dontAsk, which refuses instead of asking.`,
  deniedNoPrompts: (name: string) =>
    `Permission to use ${name} has been denied: this call needs approval and the session is set to never ask (shouldAvoidPermissionPrompts).`,
  deniedNoApprover: (name: string) =>
    `Permission to use ${name} has been denied: this call needs approval and no approver is connected to answer.`,
  deniedTimeout: (name: string, timeoutMs: number) =>
    `Permission to use ${name} has been denied: this call needs approval and nobody answered within ${timeoutMs} ms.`,
  deniedRuleMatchWork: (name: string, rules: number, characters: number, limit: number) =>
    `Permission to use ${name} has been denied: the command (${characters} characters) is too long to check against ${rules} permission rules within the matching bound (rules × characters ≤ ${limit}, TOOLEXEC_MAX_RULE_MATCH_WORK). Shorten it or split it into several calls.`,
  deniedWaitingBound: (name: string) =>
    `Permission to use ${name} has been denied: this call needs approval and too many asks are already waiting for an answer on this server (TOOLEXEC_MAX_WAITING_ASKS). Try again later.`,
  deniedByApprover: (name: string) => `Permission to use ${name} has been denied by the approver.`,
  deniedPromptFailed: (name: string, reason: string) =>
    `Permission to use ${name} has been denied: the approval request failed (${reason}).`,

  /** Ask texts: shown to the approver in `permission.requested`, never to the model. */
  askByRule: (name: string, rule: string) => `${name} needs approval: the call matches the ask rule ${rule}.`,
  askByHook: (name: string, reason?: string) =>
    reason
      ? `${name} needs approval: a PreToolUse hook asked for it: ${reason}`
      : `${name} needs approval: a PreToolUse hook asked for it.`,
  askOutsideWorkingDirectories: (name: string, path: string) =>
    `${name} needs approval: ${path} is outside the session's working directories.`,
  askNoRule: (name: string) => `${name} needs approval: no rule allows this call.`,
} as const
