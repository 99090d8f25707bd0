// Pins Read and Edit path rules, working directories and the blob directory, and MCP server rules.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { decidePermission } from '../../src/permissions/decide-permission.js'
import {
  bash,
  describePermissionTable,
  file,
  type PermissionCase,
  usePermissionWorkspace,
} from './decide-permission-table.js'
import { bashTool, editTool, grepTool, makeContext, mcpTool, readTool, writeTool } from './permission-fixtures.js'

const cases: PermissionCase[] = [
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
]

describePermissionTable('decidePermission: paths and MCP servers', cases, 22)

describe('decidePermission: the blob directory', () => {
  const workspace = usePermissionWorkspace()

  it('asks about a Write in the blob directory but reads there freely', async () => {
    const blobFile = path.join(workspace().blobRoot, 'b.txt')
    const context = makeContext(workspace())
    expect((await decidePermission({ tool: writeTool, input: file(blobFile), context })).behavior).toBe('ask')
    expect((await decidePermission({ tool: readTool, input: file(blobFile), context })).behavior).toBe('allow')
  })
})
