// Pins the rule syntax: names, content, escapes, whole-tool forms and the errors that name a bad rule.
import { describe, expect, it } from 'vitest'
import {
  findInvalidRules,
  formatPermissionRule,
  getRules,
  PermissionRuleSyntaxError,
  parsePermissionRule,
} from '../../src/permissions/permission-rule.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'

describe('parsePermissionRule', () => {
  it.each([
    ['Bash', { toolName: 'Bash' }],
    ['  Read  ', { toolName: 'Read' }],
    ['Bash(npm run test:*)', { toolName: 'Bash', ruleContent: 'npm run test:*' }],
    ['Bash()', { toolName: 'Bash' }],
    ['Bash(*)', { toolName: 'Bash' }],
    ['Bash(echo \\(hi\\))', { toolName: 'Bash', ruleContent: 'echo (hi)' }],
    ['Bash(echo \\\\)', { toolName: 'Bash', ruleContent: 'echo \\' }],
    ['Bash(python -c "print(1)")', { toolName: 'Bash', ruleContent: 'python -c "print(1)"' }],
    ['Read(src/**)', { toolName: 'Read', ruleContent: 'src/**' }],
    ['mcp__srv', { toolName: 'mcp__srv' }],
    ['mcp__srv__*', { toolName: 'mcp__srv__*' }],
    ['mcp__my-srv__tool_1', { toolName: 'mcp__my-srv__tool_1' }],
  ])('%s', (text, expected) => {
    expect(parsePermissionRule(text)).toEqual(expected)
  })

  it.each(['', 'Bash(', 'Bash(x', 'Bash)', '(x)', 'Bash(x) y', 'Bash(x\\)', 'Ba sh', 'mcp__srv__*(x)', 'Bash*'])(
    'rejects %j with an error naming the rule',
    (text) => {
      expect(() => parsePermissionRule(text)).toThrow(PermissionRuleSyntaxError)
      expect(() => parsePermissionRule(text)).toThrow(JSON.stringify(text))
    },
  )

  it('round-trips through formatPermissionRule', () => {
    for (const content of ['echo (hi)', 'a\\b', 'npm run test:*', 'x)y(']) {
      const text = formatPermissionRule({ toolName: 'Bash', ruleContent: content })
      expect(parsePermissionRule(text)).toEqual({ toolName: 'Bash', ruleContent: content })
    }
    expect(formatPermissionRule({ toolName: 'Read' })).toBe('Read')
  })
})

describe('rules of a context', () => {
  it('lists invalid rules by source', () => {
    const errors = findInvalidRules({ operatorSettings: ['Bash', 'Bash('], session: ['Read(x'] })
    expect(errors.map((error) => error.rule)).toEqual(['Bash(', 'Read(x'])
  })

  it('parses operator rules before session and request rules, skipping invalid ones', () => {
    const context = createPermissionContext({
      alwaysDenyRules: { request: ['Edit'], session: ['Bash(', 'Read'], operatorSettings: ['Bash(rm:*)'] },
    })
    expect(getRules(context, 'deny').map((rule) => [rule.source, rule.text])).toEqual([
      ['operatorSettings', 'Bash(rm:*)'],
      ['session', 'Read'],
      ['request', 'Edit'],
    ])
    expect(getRules(context, 'allow')).toEqual([])
  })
})
