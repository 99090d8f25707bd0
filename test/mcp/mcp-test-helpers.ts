import { mkdtemp, readFile, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BuildAppOptions, buildApp } from '../../app.js'
import { mcpEndpointPlugin } from '../../plugins/mcp.js'
import { mcpRoutes } from '../../routes/mcp.js'
import { loadConfig } from '../../src/config/load-config.js'
import { createPermissionContext } from '../../src/permissions/permission-context.js'
import type { BlobStore } from '../../src/results/blob-store.js'
import type { AnyTool, MappedToolResult, ToolProgressData, ToolUseContext } from '../../src/tool/tool.js'

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
    environment: { sandbox: 'off', multiTenant: false, blobDirectory: root },
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

/**
 * The service listening on a loopback port with `/mcp` registered. Registers the MCP endpoint
 * plugin and routes itself only while app.ts does not, so this keeps working once it does.
 */
export async function startServiceWithMcp(options: BuildAppOptions & { env?: Record<string, string> } = {}) {
  const { env = {}, ...appOptions } = options
  const root = await tempDir('service')
  const config = loadConfig({
    TOOLEXEC_WORKSPACE: path.join(root, 'workspace'),
    TOOLEXEC_BLOB_DIR: path.join(root, 'blobs'),
    LOG_LEVEL: 'silent',
    TOOLEXEC_SANDBOX: 'off',
    ...env,
  })
  const app = await buildApp(config, appOptions)
  if (!app.hasDecorator('mcpEndpoint')) await app.register(mcpEndpointPlugin)
  if (!app.hasRoute({ method: 'POST', url: '/mcp' })) await app.register(mcpRoutes)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`)
  const close = async () => {
    await app.close()
    await rm(root, { recursive: true, force: true })
  }
  return { app, config, url, close }
}
