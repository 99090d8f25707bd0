// Pins hook opinions (never over a deny or ask rule), the tool's own opinion, and rule sources.
import { describe, expect, it } from 'vitest'
import { decidePermission } from '../../src/permissions/decide-permission.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import {
  bash,
  describePermissionTable,
  type PermissionCase,
  RM,
  usePermissionWorkspace,
} from './decide-permission-table.js'
import { bashTool, makeContext, opinionatedTool } from './permission-fixtures.js'

const cases: PermissionCase[] = [
  // Hooks: never over a deny or ask rule
  {
    name: 'hook allow vs ask rule',
    tool: bashTool,
    input: bash('git push'),
    ask: ['Bash(git push:*)'],
    hook: { permissionDecision: 'allow' },
    expected: 'ask',
  },
  {
    name: 'hook allow vs deny rule',
    tool: bashTool,
    input: bash('rm x'),
    deny: RM,
    hook: { permissionDecision: 'allow' },
    expected: 'deny',
  },
  {
    name: 'hook allow skips the no-rule ask',
    tool: bashTool,
    input: bash('rm x'),
    hook: { permissionDecision: 'allow' },
    expected: 'allow',
  },
  {
    name: 'hook deny vs allow rule',
    tool: bashTool,
    input: bash('rm x'),
    allow: RM,
    hook: { permissionDecision: 'deny', permissionDecisionReason: 'no' },
    expected: 'deny',
    message: 'Permission to use Bash has been denied by a PreToolUse hook: no',
  },
  {
    name: 'hook ask vs allow rule',
    tool: bashTool,
    input: bash('rm x'),
    allow: RM,
    hook: { permissionDecision: 'ask' },
    expected: 'ask',
  },
  {
    name: 'hook ask in bypass',
    tool: bashTool,
    input: bash('rm x'),
    mode: 'bypassPermissions',
    hook: { permissionDecision: 'ask' },
    expected: 'ask',
  },
  { name: 'hook block', tool: bashTool, input: bash('ls'), hook: { blockingReason: 'stop' }, expected: 'deny' },
  // The tool's own opinion and sources
  {
    name: 'tool deny beats bypass',
    tool: opinionatedTool({ behavior: 'deny', message: 'nope' }),
    input: {},
    mode: 'bypassPermissions',
    expected: 'deny',
    message: 'nope',
  },
  {
    name: 'tool ask',
    tool: opinionatedTool({ behavior: 'ask', message: 'sure?' }),
    input: {},
    expected: 'ask',
    message: 'sure?',
  },
  {
    name: 'tool ask, allow rule',
    tool: opinionatedTool({ behavior: 'ask', message: 'sure?' }),
    input: {},
    allow: ['Opinionated'],
    expected: 'allow',
  },
  { name: 'tool allow', tool: opinionatedTool({ behavior: 'allow' }), input: {}, expected: 'allow' },
  {
    name: 'operator deny beats session allow',
    tool: bashTool,
    input: bash('rm x'),
    deny: RM,
    session: { allow: RM },
    expected: 'deny',
  },
  {
    name: 'operator ask beats session allow',
    tool: bashTool,
    input: bash('rm x'),
    ask: RM,
    session: { allow: RM },
    expected: 'ask',
  },
  {
    name: 'session deny beats operator allow',
    tool: bashTool,
    input: bash('rm x'),
    allow: RM,
    session: { deny: RM },
    expected: 'deny',
  },
]

describePermissionTable("decidePermission: hooks, the tool's opinion and rule sources", cases, 14)

describe('decidePermission: the decision reason', () => {
  const workspace = usePermissionWorkspace()

  it('names the matching rule and its source in the decision reason', async () => {
    const permissionContext = createPermissionContext({ alwaysDenyRules: { session: ['Bash(rm:*)'] } })
    const decision = await decidePermission({
      tool: bashTool,
      input: bash('rm -rf x'),
      context: makeContext(workspace(), permissionContext),
    })
    expect(decision).toMatchObject({
      behavior: 'deny',
      decisionReason: { type: 'rule', rule: 'Bash(rm:*)', source: 'session' },
    })
  })
})
