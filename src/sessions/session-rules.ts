import { ApiError } from '../errors/api-error.js'

/** A session's own rules, as POST and PATCH /v1/sessions take them. */
export type SessionRules = { allow?: string[] | undefined; deny?: string[] | undefined; ask?: string[] | undefined }

/** Refuses rules that together exceed TOOLEXEC_MAX_SESSION_RULE_BYTES (docs/adr/0234-session-caps.md); no limit: none. */
export function checkRuleBytes(
  { allow = [], deny = [], ask = [] }: SessionRules,
  maxRuleBytes: number | undefined,
): void {
  if (maxRuleBytes === undefined) return
  let ruleBytes = 0
  for (const rule of [...allow, ...deny, ...ask]) ruleBytes += Buffer.byteLength(rule)
  if (ruleBytes > maxRuleBytes) {
    throw new ApiError(
      'session_rules_too_large',
      `The session's rules take ${ruleBytes} bytes, over the limit of ${maxRuleBytes} (TOOLEXEC_MAX_SESSION_RULE_BYTES): put common rules in the settings file, or use fewer, broader ones`,
    )
  }
}
