// Shared fixtures for the built-in tool tests: temp directories and a real ToolUseContext.
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { AssistantMessage } from '../../src/messages/content-blocks.js'
import { createFileBlobStore } from '../../src/results/file-blob-store.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import type { AnyTool, CanUseToolFn, ToolEnvironment, ToolUseContext } from '../../src/tool/tool.js'

export type TestWorkspace = {
  /** Real path of the session cwd. */
  cwd: string
  /** Real path of a sibling directory outside every working directory. */
  outside: string
  blobRoot: string
  cleanup(): Promise<void>
}

export async function createTestWorkspace(): Promise<TestWorkspace> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-tools-')))
  const cwd = path.join(root, 'workspace')
  const outside = path.join(root, 'outside')
  const blobRoot = path.join(root, 'blobs')
  const { mkdir } = await import('node:fs/promises')
  await Promise.all([mkdir(cwd), mkdir(outside), mkdir(blobRoot)])
  return { cwd, outside, blobRoot, cleanup: () => rm(root, { recursive: true, force: true }) }
}

export type TestContextOptions = {
  cwd: string
  blobRoot: string
  tenant?: string
  additionalWorkingDirectories?: string[]
  environment?: Partial<ToolEnvironment>
  abortSignal?: AbortSignal
  tools?: readonly AnyTool[]
  toolUseId?: string
}

export function createTestContext(options: TestContextOptions): ToolUseContext {
  const tenant = options.tenant ?? 'tenant-a'
  const blobs = createFileBlobStore({ root: options.blobRoot, ttlMs: 60_000 })
  return {
    tenant,
    sessionId: 'session-1',
    runId: 'run-1',
    toolUseId: options.toolUseId ?? 'toolu_1',
    cwd: options.cwd,
    permissionContext: createPermissionContext({
      additionalWorkingDirectories: options.additionalWorkingDirectories ?? [],
    }),
    abortSignal: options.abortSignal ?? new AbortController().signal,
    readFileState: new Map(),
    todos: [],
    tools: options.tools ?? [],
    blobs,
    environment: {
      sandbox: 'off',
      multiTenant: false,
      blobDirectory: blobs.directory(tenant),
      // The temp root holding cwd and its siblings: unit tests of tools may grant those.
      workspaceRoot: path.dirname(options.cwd),
      ...options.environment,
    },
  }
}

export const allowAll: CanUseToolFn = async () => ({ behavior: 'allow' })

export const parentMessage: AssistantMessage = { role: 'assistant', content: [] }

/** Runs validateInput then call, like the engine does, returning the data or the failure text. */
export async function runTool<T extends AnyTool>(
  tool: T,
  rawInput: unknown,
  context: ToolUseContext,
  onProgress?: (data: { [key: string]: unknown }) => void,
): Promise<{ ok: true; data: unknown; context: ToolUseContext } | { ok: false; message: string; error?: unknown }> {
  const parsed = tool.inputSchema.safeParse(rawInput)
  if (!parsed.success) return { ok: false, message: `InputValidationError: ${parsed.error.message}` }
  const validation = (await tool.validateInput?.(parsed.data, context)) ?? { result: true }
  if (!validation.result) return { ok: false, message: validation.message }
  try {
    const result = await tool.call(parsed.data, context, allowAll, parentMessage, onProgress)
    return { ok: true, data: result.data, context: result.contextModifier?.(context) ?? context }
  } catch (error) {
    const parts =
      error instanceof Error ? [error.message, (error as { stdout?: string }).stdout ?? ''] : [String(error)]
    return { ok: false, message: parts.filter(Boolean).join('\n'), error }
  }
}

/** The data of a successful runTool result; fails the test with the message otherwise. */
export function okData<T = never>(result: Awaited<ReturnType<typeof runTool>>): T {
  if (!result.ok) throw new Error(`Expected success, got: ${result.message}`)
  return result.data as T
}
