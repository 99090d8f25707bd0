/**
 * The bound on permission-rule matching per call (docs/permissions.md#how-much-matching-a-call-may-cost):
 * one judgement compares at most this many characters, counted as the Bash content rules of one
 * behavior times the characters of the command's word lists they are tested against. Matching
 * is linear in the command for each rule (docs/adr/0096), so this bounds how long a call can hold
 * the event loop however long its command and however many rules its session carries
 * (docs/adr/0232-rule-matching-is-bounded.md). Set at start from TOOLEXEC_MAX_RULE_MATCH_WORK.
 */
export const DEFAULT_RULE_MATCH_WORK = 64 * 1024 * 1024

let limit = DEFAULT_RULE_MATCH_WORK

export function setRuleMatchWorkLimit(value: number): void {
  limit = value
}

export function ruleMatchWorkLimit(): number {
  return limit
}

/** A deny or ask judgement over the bound: the call is refused, never judged partly. */
export class RuleMatchWorkExceeded extends Error {
  override name = 'RuleMatchWorkExceeded'
  constructor(
    readonly rules: number,
    readonly characters: number,
  ) {
    super(`${rules} rules × ${characters} characters is over the matching bound of ${limit}`)
  }
}

/** Throws (deny, ask) or answers false (allow: no rule may allow it) when the work is over the bound. */
export function withinRuleMatchWork(rules: number, wordLists: readonly (readonly string[])[]): boolean {
  let characters = 0
  for (const words of wordLists) for (const word of words) characters += word.length + 1
  return rules * characters <= limit || rules === 0
}
