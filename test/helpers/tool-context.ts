// The one workspace and ToolUseContext factory the unit tests share: real temp directories and a
// real context, so tools, permissions, hooks, the executor and MCP tools see what the service gives them.
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { createFileBlobStore } from '../../src/results/file-blob-store.js'
import { createPermissionContext, type ToolPermissionContext } from '../../src/tool/permission-context.js'
import type { AnyTool, ToolEnvironment, ToolUseContext } from '../../src/tool/tool.js'

export type TestWorkspace = {
  /** Real path of the temp directory holding everything below. */
  root: string
  /** The session cwd. */
  cwd: string
  /** A sibling directory outside every working directory. */
  outside: string
  /** A sibling directory a test may add as an additional working directory. */
  extra: string
  blobRoot: string
  cleanup(): Promise<void>
}

/** Fresh temp directories; the caller removes them with `cleanup` (in `afterAll` for shared ones). */
export async function createTestWorkspace(): Promise<TestWorkspace> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-test-')))
  const [cwd, outside, extra, blobRoot] = ['workspace', 'outside', 'extra', 'blobs'].map((name) =>
    path.join(root, name),
  )
  await Promise.all([cwd, outside, extra, blobRoot].map((directory) => mkdir(directory as string)))
  return {
    root,
    cwd: cwd as string,
    outside: outside as string,
    extra: extra as string,
    blobRoot: blobRoot as string,
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}

/** A workspace removed when the current test finishes. */
export async function useTestWorkspace(): Promise<TestWorkspace> {
  const workspace = await createTestWorkspace()
  onTestFinished(workspace.cleanup)
  return workspace
}

export type TestContextOptions = {
  cwd: string
  blobRoot: string
  tenant?: string
  /** Used as it is; otherwise one is made from `additionalWorkingDirectories`. */
  permissionContext?: ToolPermissionContext
  additionalWorkingDirectories?: string[]
  environment?: Partial<ToolEnvironment>
  abortSignal?: AbortSignal | undefined
  tools?: readonly AnyTool[]
  toolUseId?: string
}

/** A real ToolUseContext; as the executor's `SessionContext` it carries call fields the executor replaces. */
export function createTestContext(options: TestContextOptions): ToolUseContext {
  const tenant = options.tenant ?? 'tenant-a'
  const blobs = createFileBlobStore({ root: options.blobRoot, ttlMs: 60_000 })
  return {
    tenant,
    sessionId: 'session-1',
    runId: 'run-1',
    toolUseId: options.toolUseId ?? 'toolu_1',
    cwd: options.cwd,
    permissionContext:
      options.permissionContext ??
      createPermissionContext({ additionalWorkingDirectories: options.additionalWorkingDirectories ?? [] }),
    abortSignal: options.abortSignal ?? new AbortController().signal,
    readFileState: new Map(),
    todos: [],
    tools: options.tools ?? [],
    blobs,
    environment: {
      sandbox: 'off',
      multiTenant: false,
      // The tenant's root holds the cwd and its siblings, as a tenant workspace holds sessions.
      workspaceRoot: path.dirname(options.cwd),
      // Read lazily: the store creates the tenant directory when asked, and most tests never ask.
      get blobDirectory() {
        return blobs.directory(tenant)
      },
      ...options.environment,
    },
  }
}
