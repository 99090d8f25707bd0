// Pins how several hooks' verdicts combine: deny > ask > allow, input, context, blocks.
import { describe, expect, it } from 'vitest'
import { combinePostToolUseVerdicts, combinePreToolUseVerdicts } from '../../src/hooks/combine-hook-verdicts.js'
import { verdictFromOutput } from '../../src/hooks/hook-output.js'

describe('combinePreToolUseVerdicts', () => {
  it('is empty without verdicts', () => {
    expect(combinePreToolUseVerdicts([])).toEqual({})
  })

  it('deny > ask > allow, joining the winning reasons', () => {
    const outcome = combinePreToolUseVerdicts([
      { permissionDecision: 'allow', reason: 'fine' },
      { permissionDecision: 'deny', reason: 'a' },
      { permissionDecision: 'ask' },
      { permissionDecision: 'deny', reason: 'b' },
    ])
    expect(outcome).toEqual({ permissionDecision: 'deny', permissionDecisionReason: 'a\nb' })
  })

  it('takes updatedInput from the last allow or ask hook, never from one without a decision', () => {
    const outcome = combinePreToolUseVerdicts([
      { permissionDecision: 'allow', updatedInput: { n: 1 } },
      { permissionDecision: 'allow', updatedInput: { n: 2 } },
      { updatedInput: { n: 3 } },
    ])
    expect(outcome).toEqual({ permissionDecision: 'allow', updatedInput: { n: 2 } })
  })

  it('concatenates context and any block', () => {
    const outcome = combinePreToolUseVerdicts([
      { additionalContext: 'x' },
      { blockingReason: 'stop' },
      { additionalContext: 'y' },
    ])
    expect(outcome).toEqual({ additionalContext: ['x', 'y'], blockingReason: 'stop' })
  })

  it('PostToolUse keeps only context and blocks', () => {
    expect(combinePostToolUseVerdicts([{ additionalContext: 'x', permissionDecision: 'deny' }])).toEqual({
      additionalContext: ['x'],
    })
  })
})

describe('verdictFromOutput', () => {
  it('reads nested and top-level fields, and the legacy decision', () => {
    expect(verdictFromOutput({ decision: 'approve', reason: 'ok' }, 'PreToolUse')).toEqual({
      permissionDecision: 'allow',
      reason: 'ok',
    })
    expect(verdictFromOutput({ permissionDecision: 'ask', additionalContext: 'c' }, 'PreToolUse')).toEqual({
      permissionDecision: 'ask',
      additionalContext: 'c',
    })
    expect(verdictFromOutput({ continue: false }, 'PostToolUse')).toEqual({
      blockingReason: 'A PostToolUse hook stopped the call.',
    })
  })
})
