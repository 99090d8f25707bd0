import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { buildTool, deferToPermissionRules } from '../../src/tool/build-tool.js'
import { createPermissionContext, type ToolPermissionContext } from '../../src/tool/permission-context.js'
import type { PermissionResult } from '../../src/tool/permission-result.js'
import type { AnyTool, ToolUseContext } from '../../src/tool/tool.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../helpers/tool-context.js'

const READ_ONLY_COMMANDS = new Set(['ls', 'cat', 'echo', 'pwd', 'head'])

const call = async () => ({ data: 'ok' })

/** Bash as far as permissions care: read-only when every word-one is a known reader. */
export const bashTool = buildTool({
  name: 'Bash',
  ruleFamily: 'shell',
  inputSchema: z.strictObject({ command: z.string() }),
  maxResultSizeChars: 30_000,
  // Like the real tools: no opinion of their own, the rules decide.
  checkPermissions: deferToPermissionRules,
  description: async () => 'Run a command',
  prompt: async () => '',
  call,
  isReadOnly: (input: { command: string }) =>
    !/[;&|<>$`]/.test(input.command) && READ_ONLY_COMMANDS.has(input.command.trim().split(/\s+/)[0] ?? ''),
})

function fileTool(name: string, readOnly: boolean, key = 'file_path'): AnyTool {
  return buildTool({
    name,
    ruleFamily: readOnly ? 'read' : 'edit',
    pathDefaultsToCwd: key === 'path',
    inputSchema: z.strictObject({
      [key]: z.string().optional(),
      pattern: z.string().optional(),
      content: z.string().optional(),
    }),
    maxResultSizeChars: 50_000,
    checkPermissions: deferToPermissionRules,
    description: async () => name,
    prompt: async () => '',
    call,
    isReadOnly: () => readOnly,
    getPath: (input: Record<string, unknown>) => input[key] as string | undefined,
  })
}

export const readTool = fileTool('Read', true)
export const editTool = fileTool('Edit', false)
export const writeTool = fileTool('Write', false)
export const grepTool = fileTool('Grep', true, 'path')
export const globTool = fileTool('Glob', true, 'path')

export const mcpTool = (name: string): AnyTool =>
  buildTool({
    name,
    ruleFamily: 'none',
    inputSchema: z.strictObject({ query: z.string().optional() }),
    maxResultSizeChars: 100_000,
    checkPermissions: deferToPermissionRules,
    description: async () => name,
    prompt: async () => '',
    call,
  })

/** A tool whose own checkPermissions answers `result`. */
export const opinionatedTool = (result: PermissionResult): AnyTool =>
  buildTool({
    name: 'Opinionated',
    ruleFamily: 'none',
    inputSchema: z.strictObject({}),
    maxResultSizeChars: 1000,
    description: async () => 'x',
    prompt: async () => '',
    call,
    checkPermissions: async () => result,
  })

/** A test workspace holding src/a.ts, secrets/key.txt, .env and a link to outside; outside holds notes.txt. */
export async function createWorkspace(): Promise<TestWorkspace> {
  const workspace = await createTestWorkspace()
  const { cwd, outside } = workspace
  await mkdir(path.join(cwd, 'src'))
  await mkdir(path.join(cwd, 'secrets'))
  await writeFile(path.join(cwd, 'src/a.ts'), 'export {}\n')
  await writeFile(path.join(cwd, 'secrets/key.txt'), 'k\n')
  await writeFile(path.join(cwd, '.env'), 'A=1\n')
  await writeFile(path.join(outside, 'notes.txt'), 'n\n')
  await symlink(outside, path.join(cwd, 'link-out'))
  return workspace
}

/** The context these tests decide in: tenant t1, blobs straight under the workspace's blob root. */
export function makeContext(
  workspace: TestWorkspace,
  permissionContext: ToolPermissionContext = createPermissionContext(),
  abortSignal: AbortSignal = new AbortController().signal,
): ToolUseContext {
  return createTestContext({
    cwd: workspace.cwd,
    blobRoot: workspace.blobRoot,
    tenant: 't1',
    permissionContext,
    abortSignal,
    environment: { blobDirectory: workspace.blobRoot },
  })
}
