// Pins matcher semantics: all, exact names with `|`, and unanchored regular expressions.
import { describe, expect, it } from 'vitest'
import { compileHookMatcher, hookMatcherError } from '../../src/hooks/hook-matcher.js'

describe('compileHookMatcher', () => {
  it.each([
    [undefined, 'Bash', true],
    ['', 'Anything', true],
    ['*', 'mcp__a__b', true],
    ['Bash', 'Bash', true],
    ['Bash', 'BashOutput', false],
    ['Edit|Write', 'Write', true],
    ['Edit|Write', 'NotebookEdit', false],
    ['mcp__memory__.*', 'mcp__memory__save', true],
    ['mcp__memory__.*', 'mcp__github__save', false],
    ['^Notebook', 'NotebookEdit', true],
    ['Write$', 'TodoWrite', true],
    ['(', 'Bash', false],
  ])('%j against %s → %s', (matcher, toolName, expected) => {
    expect(compileHookMatcher(matcher)(toolName)).toBe(expected)
  })

  it('explains a matcher that is not a valid expression', () => {
    expect(hookMatcherError('Edit|Write')).toBeUndefined()
    expect(hookMatcherError('[a-')).toMatch(/not a valid regular expression/)
  })
})
