// Pins /mcp through the deployed chain with no stickiness: a real nginx with deploy/nginx.conf
// (round robin) in front of two service processes on one real redis-server. An SDK 1.x client
// (2025-11-25, sessions in Redis) and an SDK v2 client (2026-07-28, stateless) each list and call
// tools with 0 errors; the older session keeps its toolexec session (Read, then Edit) whichever
// instance takes each request, and ends everywhere on DELETE; a call running on one instance is
// cancelled by a `notifications/cancelled` sent to the other. MCP_SCALE_OUT_CALLS (default 100)
// sets the calls per client: the figure is 1,000 (docs/mcp.md, "Behind a load balancer").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DeployedPair, startDeployedPair } from '../helpers/deployed-pair.js'
import { type NginxServer, nginxMissingReason } from '../helpers/nginx-server.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import type { ServiceProcess } from '../helpers/service-process.js'

const missing = nginxMissingReason ?? redisSkipReason
const CALLS = Number(process.env.MCP_SCALE_OUT_CALLS ?? 100)

type CallResult = { isError?: boolean; content: unknown }
const textOf = (result: CallResult) =>
  (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('\n')

describe.skipIf(missing !== undefined)('/mcp behind nginx on two instances and Redis', () => {
  let redis: RedisServer
  let instances: ServiceProcess[] = []
  let nginx: NginxServer
  let deployment: DeployedPair | undefined
  let data: string
  let workspace: string

  beforeAll(async () => {
    redis = await startRedisServer()
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-mcp-chain-'))
    workspace = path.join(data, 'workspace')
    const settings = path.join(data, 'settings.json')
    writeFileSync(settings, JSON.stringify({ permissions: { allow: ['Bash(echo:*)', 'Bash(sleep:*)', 'Edit'] } }))
    const environment = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: workspace,
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_SETTINGS: settings,
    }
    deployment = await startDeployedPair(environment)
    ;({ instances, nginx } = deployment)
  }, 90_000)

  afterAll(async () => {
    await deployment?.stop()
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  /** Lists, then calls Bash `CALLS` times; returns the calls that failed, with why. */
  async function exercise(client: {
    listTools(): Promise<{ tools: Array<{ name: string }> }>
    callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
  }): Promise<string[]> {
    const failures: string[] = []
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Bash', 'Read']))
    for (let index = 0; index < CALLS; index += 1) {
      try {
        const result = (await client.callTool({
          name: 'Bash',
          arguments: { command: `echo call-${index}` },
        })) as CallResult
        if (result.isError || textOf(result) !== `call-${index}`) failures.push(`${index}: ${textOf(result)}`)
      } catch (error) {
        failures.push(`${index}: ${(error as Error).message}`)
      }
    }
    return failures
  }

  it(`serves a 2025-11-25 session on either instance: list, ${CALLS} calls, Read then Edit, DELETE`, async () => {
    const transport = new LegacyTransport(new URL(`${nginx.baseUrl}/mcp`))
    const client = new LegacyClient({ name: 'legacy-through-nginx', version: '1.0.0' })
    await client.connect(transport)
    expect(transport.protocolVersion).toBe('2025-11-25')
    try {
      expect(await exercise(client)).toEqual([])
      // Read on one instance, Edit on the other: the session's read-file state is in Redis.
      await mkdir(workspace, { recursive: true })
      const file = path.join(workspace, 'chain.txt')
      writeFileSync(file, 'before\n')
      await client.callTool({ name: 'Read', arguments: { file_path: file } })
      const edit = (await client.callTool({
        name: 'Edit',
        arguments: { file_path: file, old_string: 'before', new_string: 'after' },
      })) as CallResult
      expect(edit.isError, textOf(edit)).toBeFalsy()
      expect(readFileSync(file, 'utf8')).toBe('after\n')
      const sessionId = transport.sessionId
      await transport.terminateSession()
      // Ended everywhere: both instances (two requests, round robin) now answer 404.
      for (const _ of instances) {
        const response = await fetch(`${nginx.baseUrl}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId ?? '',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        })
        expect(response.status).toBe(404)
      }
    } finally {
      await client.close()
    }
  }, 600_000)

  it('cancels a call running on one instance from a notifications/cancelled sent to the other', async () => {
    const [a, b] = instances as [ServiceProcess, ServiceProcess]
    const headers = (sessionId?: string) => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    })
    const initialize = await fetch(`${a.baseUrl}/mcp`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    })
    const sessionId = initialize.headers.get('mcp-session-id') ?? ''
    await initialize.text()
    const call = await fetch(`${a.baseUrl}/mcp`, {
      method: 'POST',
      headers: headers(sessionId),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 42,
        method: 'tools/call',
        params: { name: 'Bash', arguments: { command: 'echo waiting; sleep 120' }, _meta: { progressToken: 7 } },
      }),
    })
    const reader = call.body!.pipeThrough(new TextDecoderStream()).getReader()
    let stream = ''
    while (!stream.includes('notifications/progress')) {
      const { value, done } = await reader.read()
      if (done) break
      stream += value
    }
    expect(stream).toContain('waiting')
    const cancel = await fetch(`${b.baseUrl}/mcp`, {
      method: 'POST',
      headers: headers(sessionId),
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 42, reason: 'changed my mind' },
      }),
    })
    expect(cancel.status).toBe(202)
    // The call ends long before `sleep 120` would: its response arrives and the stream closes.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) stream += chunk.value
    expect(stream).toMatch(/"id":42/)
    expect(stream).not.toContain('"error"')
  }, 60_000)

  it(`serves a 2026-07-28 client statelessly: list, ${CALLS} calls`, async () => {
    const client = new ModernClient(
      { name: 'modern-through-nginx', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    )
    await client.connect(new ModernTransport(new URL(`${nginx.baseUrl}/mcp`)))
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    try {
      expect(await exercise(client)).toEqual([])
    } finally {
      await client.close()
    }
  }, 600_000)
})
