// Pins how the permission modes meet the rules.

import { bash, describePermissionTable, file, type PermissionCase, RM } from './decide-permission-table.js'
import { bashTool, editTool, readTool, writeTool } from './permission-fixtures.js'

const cases: PermissionCase[] = [
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
]

describePermissionTable('decidePermission: modes', cases, 20)
