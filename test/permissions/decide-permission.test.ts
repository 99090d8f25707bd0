// Pins the rules engine: rule language, precedence, modes, hook opinions and paths, case by case.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PreToolUseOutcome } from '../../src/executor/hook-runner.js'
import { decidePermission } from '../../src/permissions/decide-permission.js'
import { createPermissionContext, type PermissionMode } from '../../src/tool/permission-context.js'
import type { AnyTool } from '../../src/tool/tool.js'
import type { TestWorkspace } from '../helpers/tool-context.js'
import {
  bashTool,
  createWorkspace,
  editTool,
  grepTool,
  makeContext,
  mcpTool,
  opinionatedTool,
  readTool,
  writeTool,
} from './permission-fixtures.js'

type Case = {
  name: string
  tool: AnyTool
  /** Strings may use {CWD}, {OUTSIDE}, {EXTRA}, {BLOBS}. */
  input: Record<string, string>
  allow?: string[]
  deny?: string[]
  ask?: string[]
  session?: { allow?: string[]; deny?: string[]; ask?: string[] }
  mode?: PermissionMode
  bypassUnavailable?: boolean
  avoidPrompts?: boolean
  hook?: PreToolUseOutcome
  expected: 'allow' | 'deny' | 'ask'
  message?: string | RegExp
}

const bash = (command: string) => ({ command })
const file = (filePath: string) => ({ file_path: filePath })
const TEST_PREFIX = ['Bash(npm run test:*)']
const RM = ['Bash(rm:*)']

const cases: Case[] = [
  // Prefix rules: `npm run test:*`
  { name: 'prefix: exact words', tool: bashTool, input: bash('npm run test'), allow: TEST_PREFIX, expected: 'allow' },
  {
    name: 'prefix: more words',
    tool: bashTool,
    input: bash('npm run test -- --watch'),
    allow: TEST_PREFIX,
    expected: 'allow',
  },
  {
    name: 'prefix: not test:unit',
    tool: bashTool,
    input: bash('npm run test:unit'),
    allow: TEST_PREFIX,
    expected: 'ask',
  },
  {
    name: 'prefix: never compound',
    tool: bashTool,
    input: bash('npm run test && rm -rf x'),
    allow: TEST_PREFIX,
    expected: 'ask',
  },
  { name: 'prefix: not tests', tool: bashTool, input: bash('npm run tests'), allow: TEST_PREFIX, expected: 'ask' },
  {
    name: 'prefix: extra spaces',
    tool: bashTool,
    input: bash('npm  run   test'),
    allow: TEST_PREFIX,
    expected: 'allow',
  },
  {
    name: 'prefix: every part allowed',
    tool: bashTool,
    input: bash('npm run test; make lint'),
    allow: [...TEST_PREFIX, 'Bash(make lint)'],
    expected: 'allow',
  },
  {
    name: 'prefix: substitution',
    tool: bashTool,
    input: bash('npm run test $(rm -rf x)'),
    allow: TEST_PREFIX,
    expected: 'ask',
  },
  {
    name: 'prefix: redirect to a file',
    tool: bashTool,
    input: bash('npm run test > /etc/passwd'),
    allow: TEST_PREFIX,
    expected: 'ask',
  },
  {
    name: 'prefix: 2>&1 is fine',
    tool: bashTool,
    input: bash('npm run test 2>&1'),
    allow: TEST_PREFIX,
    expected: 'allow',
  },
  {
    name: 'prefix: /dev/null is fine',
    tool: bashTool,
    input: bash('npm run test > /dev/null'),
    allow: TEST_PREFIX,
    expected: 'allow',
  },
  {
    name: 'prefix: harmless env var',
    tool: bashTool,
    input: bash('NODE_ENV=ci npm run test'),
    allow: TEST_PREFIX,
    expected: 'allow',
  },
  {
    name: 'prefix: dangerous env var',
    tool: bashTool,
    input: bash('LD_PRELOAD=x.so npm run test'),
    allow: TEST_PREFIX,
    expected: 'ask',
  },
  {
    name: 'prefix: variable',
    tool: bashTool,
    input: bash('npm run test $TARGET'),
    allow: TEST_PREFIX,
    expected: 'ask',
  },
  {
    name: 'prefix: unparsable never allowed',
    tool: bashTool,
    input: bash('if npm run test; then make; fi'),
    allow: TEST_PREFIX,
    expected: 'ask',
  },
  {
    name: 'prefix: a rule may spell an env var',
    tool: bashTool,
    input: bash('PATH=/opt/bin make check'),
    allow: ['Bash(PATH=/opt/bin make:*)'],
    expected: 'allow',
  },
  // Deny rules see through env vars, wrappers, substitutions and nested shells
  {
    name: 'deny: plain',
    tool: bashTool,
    input: bash('rm -rf x'),
    deny: RM,
    expected: 'deny',
    message: 'Permission to use Bash has been denied.',
  },
  { name: 'deny: env var', tool: bashTool, input: bash('FOO=1 rm -rf x'), deny: RM, expected: 'deny' },
  { name: 'deny: timeout wrapper', tool: bashTool, input: bash('timeout 5 rm x'), deny: RM, expected: 'deny' },
  {
    name: 'deny: nice and env wrappers',
    tool: bashTool,
    input: bash('nice -n 5 env A=1 rm x'),
    deny: RM,
    expected: 'deny',
  },
  { name: 'deny: any part of a list', tool: bashTool, input: bash('ls && rm x'), deny: RM, expected: 'deny' },
  { name: 'deny: inside a substitution', tool: bashTool, input: bash('echo $(rm -rf x)'), deny: RM, expected: 'deny' },
  { name: 'deny: inside bash -c', tool: bashTool, input: bash('bash -c "rm -rf x"'), deny: RM, expected: 'deny' },
  {
    name: 'deny: unparsable fails closed',
    tool: bashTool,
    input: bash('if true; then rm x; fi'),
    deny: RM,
    expected: 'deny',
  },
  { name: 'deny: rmdir is another command', tool: bashTool, input: bash('rmdir x'), deny: RM, expected: 'ask' },
  { name: 'deny: the word as an argument', tool: bashTool, input: bash('echo rm'), deny: RM, expected: 'allow' },
  {
    name: 'deny beats whole-tool allow',
    tool: bashTool,
    input: bash('rm x'),
    allow: ['Bash'],
    deny: RM,
    expected: 'deny',
  },
  { name: 'whole-tool deny', tool: bashTool, input: bash('ls'), deny: ['Bash'], expected: 'deny' },
  // Wildcards and exact rules
  {
    name: 'wildcard: middle',
    tool: bashTool,
    input: bash('git push origin main --force'),
    deny: ['Bash(git push * --force)'],
    expected: 'deny',
  },
  {
    name: 'wildcard: no match',
    tool: bashTool,
    input: bash('git push origin main'),
    deny: ['Bash(git push * --force)'],
    expected: 'ask',
  },
  {
    name: 'wildcard: trailing matches bare',
    tool: bashTool,
    input: bash('git log'),
    allow: ['Bash(git log *)'],
    expected: 'allow',
  },
  {
    name: 'wildcard: trailing with args',
    tool: bashTool,
    input: bash('git log --oneline -5'),
    allow: ['Bash(git log *)'],
    expected: 'allow',
  },
  {
    name: 'wildcard: not another word',
    tool: bashTool,
    input: bash('git logs'),
    allow: ['Bash(git log *)'],
    expected: 'ask',
  },
  { name: 'exact: match', tool: bashTool, input: bash('make build'), allow: ['Bash(make build)'], expected: 'allow' },
  {
    name: 'exact: longer word',
    tool: bashTool,
    input: bash('make build-all'),
    allow: ['Bash(make build)'],
    expected: 'ask',
  },
  {
    name: 'exact: escaped parentheses',
    tool: bashTool,
    input: bash('printf "(hi)"'),
    allow: ['Bash(printf \\(hi\\))'],
    expected: 'allow',
  },
  // Modes
  {
    name: 'bypass: ask rule still asks',
    tool: bashTool,
    input: bash('git push'),
    ask: ['Bash(git push:*)'],
    mode: 'bypassPermissions',
    expected: 'ask',
  },
  { name: 'bypass: no rule allows', tool: bashTool, input: bash('rm x'), mode: 'bypassPermissions', expected: 'allow' },
  {
    name: 'bypass: deny rule denies',
    tool: bashTool,
    input: bash('rm x'),
    deny: RM,
    mode: 'bypassPermissions',
    expected: 'deny',
  },
  {
    name: 'bypass: unavailable is default',
    tool: bashTool,
    input: bash('rm x'),
    mode: 'bypassPermissions',
    bypassUnavailable: true,
    expected: 'ask',
  },
  {
    name: 'dontAsk: ask becomes deny',
    tool: bashTool,
    input: bash('rm x'),
    mode: 'dontAsk',
    expected: 'deny',
    message: /permission mode is dontAsk/,
  },
  {
    name: 'dontAsk: allow rule allows',
    tool: bashTool,
    input: bash('rm x'),
    allow: RM,
    mode: 'dontAsk',
    expected: 'allow',
  },
  { name: 'dontAsk: read-only allowed', tool: bashTool, input: bash('ls'), mode: 'dontAsk', expected: 'allow' },
  { name: 'acceptEdits: edit inside', tool: editTool, input: file('src/a.ts'), mode: 'acceptEdits', expected: 'allow' },
  {
    name: 'acceptEdits: new file inside',
    tool: writeTool,
    input: file('src/new/b.ts'),
    mode: 'acceptEdits',
    expected: 'allow',
  },
  {
    name: 'acceptEdits: edit outside',
    tool: editTool,
    input: file('{OUTSIDE}/notes.txt'),
    mode: 'acceptEdits',
    expected: 'ask',
  },
  {
    name: 'acceptEdits: through a link outside',
    tool: editTool,
    input: file('link-out/notes.txt'),
    mode: 'acceptEdits',
    expected: 'ask',
  },
  {
    name: 'acceptEdits: not the blob dir',
    tool: writeTool,
    input: file('{BLOBS}/x.txt'),
    mode: 'acceptEdits',
    expected: 'ask',
  },
  { name: 'acceptEdits: not Bash', tool: bashTool, input: bash('rm x'), mode: 'acceptEdits', expected: 'ask' },
  {
    name: 'acceptEdits: ask rule wins',
    tool: editTool,
    input: file('yarn.lock'),
    ask: ['Edit(*.lock)'],
    mode: 'acceptEdits',
    expected: 'ask',
  },
  {
    name: 'default: edit asks',
    tool: editTool,
    input: file('src/a.ts'),
    expected: 'ask',
    message: 'Edit needs approval: no rule allows this call.',
  },
  {
    name: 'plan: edit denied',
    tool: editTool,
    input: file('src/a.ts'),
    mode: 'plan',
    expected: 'deny',
    message: /plan mode/,
  },
  { name: 'plan: read allowed', tool: readTool, input: file('src/a.ts'), mode: 'plan', expected: 'allow' },
  {
    name: 'plan: allow rule does not help',
    tool: bashTool,
    input: bash('rm x'),
    allow: RM,
    mode: 'plan',
    expected: 'deny',
  },
  { name: 'plan: read-only Bash allowed', tool: bashTool, input: bash('ls'), mode: 'plan', expected: 'allow' },
  {
    name: 'avoid prompts: ask becomes deny',
    tool: bashTool,
    input: bash('rm x'),
    avoidPrompts: true,
    expected: 'deny',
    message: /never ask/,
  },
  // Read and Edit path rules, working directories
  { name: 'read inside', tool: readTool, input: file('src/a.ts'), expected: 'allow' },
  {
    name: 'read outside asks',
    tool: readTool,
    input: file('{OUTSIDE}/notes.txt'),
    expected: 'ask',
    message: /outside the session's working directories/,
  },
  { name: 'read through a link outside', tool: readTool, input: file('link-out/notes.txt'), expected: 'ask' },
  { name: 'read in the blob dir', tool: readTool, input: file('{BLOBS}/b1.txt'), expected: 'allow' },
  { name: 'read in an extra dir', tool: readTool, input: file('{EXTRA}/x.txt'), expected: 'allow' },
  {
    name: 'deny Read(secrets/**)',
    tool: readTool,
    input: file('secrets/key.txt'),
    deny: ['Read(secrets/**)'],
    expected: 'deny',
  },
  { name: 'deny Read(.env) anywhere', tool: readTool, input: file('src/.env'), deny: ['Read(.env)'], expected: 'deny' },
  {
    name: 'anchored pattern',
    tool: readTool,
    input: file('lib/src/x.ts'),
    deny: ['Read(/src/*.ts)'],
    expected: 'allow',
  },
  {
    name: 'anchored pattern hits',
    tool: readTool,
    input: file('src/a.ts'),
    deny: ['Read(/src/*.ts)'],
    expected: 'deny',
  },
  {
    name: 'absolute // pattern',
    tool: readTool,
    input: file('{OUTSIDE}/notes.txt'),
    allow: ['Read(/{OUTSIDE}/**)'],
    expected: 'allow',
  },
  {
    name: 'Read rule covers Grep',
    tool: grepTool,
    input: { path: 'secrets' },
    deny: ['Read(secrets/)'],
    expected: 'deny',
  },
  { name: 'Read(**) covers a Grep of the cwd', tool: grepTool, input: {}, deny: ['Read(**)'], expected: 'deny' },
  {
    name: 'Edit rule covers Write',
    tool: writeTool,
    input: file('src/new.ts'),
    deny: ['Edit(src/**)'],
    expected: 'deny',
  },
  { name: 'Edit allow rule', tool: editTool, input: file('src/a.ts'), allow: ['Edit(src/**)'], expected: 'allow' },
  { name: 'read-only Bash outside asks', tool: bashTool, input: bash('cat /etc/hostname'), expected: 'ask' },
  { name: 'read-only Bash inside', tool: bashTool, input: bash('cat src/a.ts'), expected: 'allow' },
  { name: 'read-only Bash climbing out', tool: bashTool, input: bash('ls ../outside'), expected: 'ask' },
  // MCP server rules
  { name: 'mcp server rule', tool: mcpTool('mcp__srv__any'), input: {}, deny: ['mcp__srv'], expected: 'deny' },
  { name: 'mcp server wildcard', tool: mcpTool('mcp__srv__any'), input: {}, deny: ['mcp__srv__*'], expected: 'deny' },
  { name: 'mcp other tool', tool: mcpTool('mcp__srv__any'), input: {}, deny: ['mcp__srv__other'], expected: 'ask' },
  { name: 'mcp other server', tool: mcpTool('mcp__srv2__any'), input: {}, deny: ['mcp__srv'], expected: 'ask' },
  { name: 'mcp exact allow', tool: mcpTool('mcp__srv__any'), input: {}, allow: ['mcp__srv__any'], expected: 'allow' },
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

let workspace: TestWorkspace
beforeAll(async () => {
  workspace = await createWorkspace()
})
afterAll(() => workspace.cleanup())

function fill(text: string): string {
  return text
    .replaceAll('{OUTSIDE}', workspace.outside)
    .replaceAll('{EXTRA}', workspace.extra)
    .replaceAll('{BLOBS}', workspace.blobRoot)
    .replaceAll('{CWD}', workspace.cwd)
}

describe('decidePermission', () => {
  it('has a table of at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60)
  })

  it.each(cases)('$name → $expected', async (testCase) => {
    const permissionContext = createPermissionContext({
      mode: testCase.mode ?? 'default',
      additionalWorkingDirectories: [workspace.extra],
      alwaysAllowRules: { operatorSettings: (testCase.allow ?? []).map(fill), session: testCase.session?.allow ?? [] },
      alwaysDenyRules: { operatorSettings: (testCase.deny ?? []).map(fill), session: testCase.session?.deny ?? [] },
      alwaysAskRules: { operatorSettings: (testCase.ask ?? []).map(fill), session: testCase.session?.ask ?? [] },
      isBypassPermissionsModeAvailable: !testCase.bypassUnavailable,
      ...(testCase.avoidPrompts ? { shouldAvoidPermissionPrompts: true } : {}),
    })
    const input = Object.fromEntries(Object.entries(testCase.input).map(([key, value]) => [key, fill(value)]))
    const decision = await decidePermission({
      tool: testCase.tool,
      input,
      context: makeContext(workspace, permissionContext),
      hookOutcome: testCase.hook ?? {},
    })
    expect(decision.behavior).toBe(testCase.expected)
    if (testCase.message !== undefined && decision.behavior !== 'allow') {
      if (typeof testCase.message === 'string') expect(decision.message).toBe(testCase.message)
      else expect(decision.message).toMatch(testCase.message)
    }
  })

  it('names the matching rule and its source in the decision reason', async () => {
    const permissionContext = createPermissionContext({ alwaysDenyRules: { session: ['Bash(rm:*)'] } })
    const decision = await decidePermission({
      tool: bashTool,
      input: bash('rm -rf x'),
      context: makeContext(workspace, permissionContext),
    })
    expect(decision).toMatchObject({
      behavior: 'deny',
      decisionReason: { type: 'rule', rule: 'Bash(rm:*)', source: 'session' },
    })
  })

  it('asks about a Write in the blob directory but reads there freely', async () => {
    const blobFile = path.join(workspace.blobRoot, 'b.txt')
    const context = makeContext(workspace)
    expect((await decidePermission({ tool: writeTool, input: file(blobFile), context })).behavior).toBe('ask')
    expect((await decidePermission({ tool: readTool, input: file(blobFile), context })).behavior).toBe('allow')
  })
})
