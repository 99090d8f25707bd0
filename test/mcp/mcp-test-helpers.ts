import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BlobStore } from '../../src/results/blob-store.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import type { AnyTool, MappedToolResult, ToolProgressData, ToolUseContext } from '../../src/tool/tool.js'
import type { TestAppOptions } from '../helpers/build-test-app.js'
import { startTestServer } from '../helpers/start-test-server.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

export const FIXTURE_SERVER = path.join(root, 'test/fixtures/mcp/fixture-server.mjs')
export const EVERYTHING_SERVER = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM_SERVER = path.join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')

export const CLIENT_INFO = { name: 'toolexec-test', version: '0.0.0' }

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `toolexec-mcp-${prefix}-`))
}

/** Just enough context for an MCP tool's `call`: it only reads the abort signal. */
export function toolContext(abortSignal: AbortSignal = new AbortController().signal): ToolUseContext {
  return {
    tenant: 'test',
    sessionId: 'session',
    runId: 'run',
    toolUseId: 'toolu_1',
    cwd: root,
    permissionContext: createPermissionContext(),
    abortSignal,
    readFileState: new Map(),
    todos: [],
    tools: [],
    blobs: {} as BlobStore,
    environment: { sandbox: 'off', multiTenant: false, blobDirectory: root, workspaceRoot: root },
  }
}

export function findTool(tools: readonly AnyTool[], name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name)
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((candidate) => candidate.name).join(', ')}`)
  return tool
}

/** Runs a tool's `call` then `mapToolResult`, as the engine would after its checks. */
export async function runTool(
  tool: AnyTool,
  input: { [key: string]: unknown },
  options: { signal?: AbortSignal; onProgress?: (data: ToolProgressData) => void } = {},
): Promise<MappedToolResult> {
  const parent = { role: 'assistant' as const, content: [] }
  const allow = async () => ({ behavior: 'allow' as const })
  const result = await tool.call(input, toolContext(options.signal), allow, parent, options.onProgress)
  return tool.mapToolResult(result.data, 'toolu_1')
}

/** Polls until `check` returns a value; only for effects of real processes we cannot await. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const value = await check()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}

export async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/** The service listening on a loopback port, with the URL of its `/mcp` endpoint. Closed by the caller. */
export async function startServiceWithMcp(options: TestAppOptions = {}) {
  const server = await startTestServer({ lifetime: 'manual', ...options })
  return { ...server, url: new URL(`${server.baseUrl}/mcp`) }
}
