/**
 * The worst case of permission-rule matching, in one process, timed: the longest rule lists a
 * session may carry (3 × 1,000 rules of 1,000 characters with 32 stars) judged against Bash
 * commands of 10 KB to 1 MiB, the longest a call may send. Prints, per command length, how long
 * one judgement holds the event loop, and whether it was judged or refused by the work bound
 * (docs/permissions.md#how-much-matching-a-call-may-cost).
 *
 *   npx tsx bench/rule-matching.ts
 */
import os from 'node:os'
import { findMatchingRule } from '../src/permissions/find-matching-rule.js'
import { MAX_RULE_LENGTH } from '../src/permissions/permission-rule.js'
import { createPermissionContext } from '../src/tool/permission-context.js'
import { BashTool } from '../src/tools/bash/bash-tool.js'

// Each rule: `echo *` then 31 more pieces and stars, ending in a star, so the start and end match
// and the first piece (found nowhere) is looked for through the whole command: every rule scans it.
const rule = (index: number) => {
  const piece = 'y'.repeat(Math.floor((MAX_RULE_LENGTH - 60) / 32))
  const pieces = Array.from({ length: 31 }, (_, at) => (at === 0 ? `z${index}${piece}` : piece))
  return `Bash(echo *${pieces.join('*')}*)`
}
const rules = Array.from({ length: 1000 }, (_, index) => rule(index))
const context = createPermissionContext({
  alwaysDenyRules: { session: rules },
  alwaysAskRules: { session: rules },
  alwaysAllowRules: { session: rules },
})
console.log(`${os.cpus()[0]?.model}, node ${process.version}`)
for (const length of [1000, 1000, 1000, 10_000, 16_000, 100_000, 1_048_576]) {
  const command = `echo ${'a'.repeat(length - 5)}`
  const subject = { tool: BashTool, input: { command }, cwd: '/tmp' }
  const started = performance.now()
  let outcome = 'judged'
  try {
    for (const behavior of ['deny', 'ask', 'allow'] as const) findMatchingRule(context, subject, behavior)
  } catch (error) {
    outcome = `refused: ${(error as Error).message.slice(0, 60)}`
  }
  console.log(`${length} characters: ${Math.round(performance.now() - started)} ms, ${outcome}`)
}
