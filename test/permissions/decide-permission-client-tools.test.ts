// Pins how rules reach the Messages API's client tools (docs/adr/0144-client-tool-permissions.md):
// `bash(npm test:*)` and `Bash(npm test:*)` are command rules for `bash`; the text editors follow
// `Edit(...)` path rules and acceptEdits, their views are read-only; memory allows itself unless a
// deny or ask rule names it.
import { createClientBashTool } from '../../src/tools/client-bash/client-bash-tool.js'
import { createShellRegistry } from '../../src/tools/client-bash/shell-registry.js'
import { createMemoryTool } from '../../src/tools/memory/memory-tool.js'
import { createTextEditorTool } from '../../src/tools/text-editor/text-editor-tool.js'
import { describePermissionTable, type PermissionCase } from './decide-permission-table.js'

const bash = createClientBashTool({ shells: createShellRegistry({ idleTtlMs: 1_000, maxShells: 1 }) })
const editor = createTextEditorTool({ type: 'text_editor_20250728' })
const memory = createMemoryTool(() => '/nonexistent/memories')

const cases: PermissionCase[] = [
  {
    name: 'bash: own prefix rule',
    tool: bash,
    input: { command: 'npm test' },
    allow: ['bash(npm test:*)'],
    expected: 'allow',
  },
  {
    name: 'bash: Bash rule covers it',
    tool: bash,
    input: { command: 'npm test -- x' },
    allow: ['Bash(npm test:*)'],
    expected: 'allow',
  },
  {
    name: 'bash: never compound',
    tool: bash,
    input: { command: 'npm test && rm -rf x' },
    allow: ['bash(npm test:*)'],
    expected: 'ask',
  },
  {
    name: 'bash: deny sees through',
    tool: bash,
    input: { command: 'ls; rm -rf x' },
    allow: ['bash'],
    deny: ['bash(rm:*)'],
    expected: 'deny',
  },
  { name: 'bash: no rule asks, even ls', tool: bash, input: { command: 'ls' }, expected: 'ask' },
  {
    name: 'editor: view inside is allowed',
    tool: editor,
    input: { command: 'view', path: '{CWD}/src/a.ts' },
    expected: 'allow',
  },
  { name: 'editor: a write asks', tool: editor, input: { command: 'create', path: '{CWD}/n.ts' }, expected: 'ask' },
  {
    name: 'editor: Edit path rule allows',
    tool: editor,
    input: { command: 'str_replace', path: '{CWD}/src/a.ts' },
    allow: ['Edit(src/**)'],
    expected: 'allow',
  },
  {
    name: 'editor: Edit deny rule denies',
    tool: editor,
    input: { command: 'view', path: '{CWD}/src/a.ts' },
    allow: ['Edit'],
    deny: ['Edit(src/**)'],
    expected: 'deny',
  },
  {
    name: 'editor: a Read deny rule stops view',
    tool: editor,
    input: { command: 'view', path: '{CWD}/secret.txt' },
    deny: ['Read(secret.txt)'],
    expected: 'deny',
  },
  {
    name: 'editor: a Read ask rule asks before view',
    tool: editor,
    input: { command: 'view', path: '{CWD}/.env' },
    ask: ['Read(.env)'],
    expected: 'ask',
  },
  {
    name: 'editor: a Read allow rule does not allow view outside',
    tool: editor,
    input: { command: 'view', path: '/etc/hostname' },
    allow: ['Read(//etc/**)'],
    expected: 'ask',
  },
  {
    name: 'editor: a Write deny rule stops a write',
    tool: editor,
    input: { command: 'create', path: '{CWD}/generated.ts' },
    allow: ['Edit'],
    deny: ['Write(generated.ts)'],
    expected: 'deny',
  },
  {
    name: 'editor: a Read deny rule leaves writes to Edit rules',
    tool: editor,
    input: { command: 'create', path: '{CWD}/secret.txt' },
    allow: ['Edit'],
    deny: ['Read(secret.txt)'],
    expected: 'allow',
  },
  {
    name: 'editor: acceptEdits allows writes inside',
    tool: editor,
    input: { command: 'insert', path: '{CWD}/src/a.ts' },
    mode: 'acceptEdits',
    expected: 'allow',
  },
  {
    name: 'memory: allowed by itself',
    tool: memory,
    input: { command: 'create', path: '/memories/a.md' },
    expected: 'allow',
  },
  {
    name: 'memory: a deny rule wins',
    tool: memory,
    input: { command: 'view', path: '/memories' },
    deny: ['memory'],
    expected: 'deny',
  },
]

describePermissionTable('client tools and rules', cases, 12)
