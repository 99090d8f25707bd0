import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { z } from 'zod'
import type { BlobStore } from '../../src/results/blob-store.js'
import { buildTool, deferToPermissionRules } from '../../src/tool/build-tool.js'
import { createPermissionContext, type ToolPermissionContext } from '../../src/tool/permission-context.js'
import type { PermissionResult } from '../../src/tool/permission-result.js'
import type { AnyTool, ToolUseContext } from '../../src/tool/tool.js'

const READ_ONLY_COMMANDS = new Set(['ls', 'cat', 'echo', 'pwd', 'head'])

const call = async () => ({ data: 'ok' })

/** Bash as far as permissions care: read-only when every word-one is a known reader. */
export const bashTool = buildTool({
  name: 'Bash',
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
    inputSchema: z.strictObject({}),
    maxResultSizeChars: 1000,
    description: async () => 'x',
    prompt: async () => '',
    call,
    checkPermissions: async () => result,
  })

/** A real workspace: src/a.ts, secrets/key.txt, .env, a link to outside; plus outside, extra and blob dirs. */
export type Workspace = {
  root: string
  cwd: string
  outside: string
  extra: string
  blobs: string
  cleanup(): Promise<void>
}

export async function createWorkspace(): Promise<Workspace> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-permissions-')))
  const cwd = path.join(root, 'ws')
  const outside = path.join(root, 'outside')
  const extra = path.join(root, 'extra')
  const blobs = path.join(root, 'blobs')
  for (const directory of [cwd, outside, extra, blobs, path.join(cwd, 'src'), path.join(cwd, 'secrets')]) {
    await mkdir(directory, { recursive: true })
  }
  await writeFile(path.join(cwd, 'src/a.ts'), 'export {}\n')
  await writeFile(path.join(cwd, 'secrets/key.txt'), 'k\n')
  await writeFile(path.join(cwd, '.env'), 'A=1\n')
  await writeFile(path.join(outside, 'notes.txt'), 'n\n')
  await symlink(outside, path.join(cwd, 'link-out'))
  return { root, cwd, outside, extra, blobs, cleanup: () => rm(root, { recursive: true, force: true }) }
}

export function makeContext(
  workspace: Workspace,
  permissionContext: ToolPermissionContext = createPermissionContext(),
  abortSignal: AbortSignal = new AbortController().signal,
): ToolUseContext {
  return {
    tenant: 't1',
    sessionId: 'session-1',
    runId: 'run-1',
    toolUseId: 'toolu_1',
    cwd: workspace.cwd,
    permissionContext,
    abortSignal,
    readFileState: new Map(),
    todos: [],
    tools: [],
    blobs: {} as BlobStore,
    environment: { sandbox: 'off', multiTenant: false, blobDirectory: workspace.blobs, workspaceRoot: workspace.root },
  }
}
