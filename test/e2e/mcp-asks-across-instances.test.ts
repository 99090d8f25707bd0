// Pins asks over /mcp across instances (docs/mcp.md#asks-over-mcp, ADR 0355): two service processes on one real redis-server with the same TOOLEXEC_SECRET_KEY; a 2026-07-28 client's call asks on the first, the user's "allow" retry goes to the second, which verifies the state the first minted and runs the call. A third instance on the same Redis without TOOLEXEC_SECRET_KEY denies as before and says why in its log.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js'

type Json = { [key: string]: unknown }
const textOf = (result: Json) =>
  (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('\n')
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64')
const allow = { toolexec_permission: { action: 'accept', content: { decision: 'allow' } } }

describe.skipIf(redisSkipReason !== undefined)('asks over /mcp across instances on Redis', () => {
  let redis: RedisServer
  let data: string
  const instances: ServiceProcess[] = []

  beforeAll(async () => {
    redis = await startRedisServer()
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-mcp-asks-'))
    const settings = path.join(data, 'settings.json')
    writeFileSync(settings, JSON.stringify({ permissions: { ask: ['Bash(touch:*)'] } }))
    const environment = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
      TOOLEXEC_SECRETS_FILE: path.join(data, 'secrets.json'),
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_SETTINGS: settings,
    }
    // The first starts alone: it records the shared volumes the others are checked against.
    instances.push(await startServiceProcess({ ...environment, TOOLEXEC_SECRET_KEY: SECRET_KEY }))
    instances.push(
      ...(await Promise.all([
        startServiceProcess({ ...environment, TOOLEXEC_SECRET_KEY: SECRET_KEY }),
        startServiceProcess(environment),
      ])),
    )
  }, 90_000)

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()))
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  async function connect(instance: ServiceProcess): Promise<Client> {
    const client = new Client(
      { name: 'asks-e2e', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    )
    client.setRequestHandler('elicitation/create', async () => ({ action: 'cancel' }))
    await client.connect(new StreamableHTTPClientTransport(new URL(`${instance.baseUrl}/mcp`)))
    return client
  }

  it('runs the retry on the other instance with the answer given to the first', async () => {
    const [first, second] = instances as [ServiceProcess, ServiceProcess]
    const target = path.join(data, 'across.txt')
    const params = { name: 'Bash', arguments: { command: `touch ${target}` } }
    const [asking, retrying] = [await connect(first), await connect(second)]
    try {
      const round = (await asking.callTool(params, { allowInputRequired: true } as never)) as Json
      expect(round.resultType).toBe('input_required')
      expect(existsSync(target)).toBe(false)
      const retry = { ...params, inputResponses: allow, requestState: round.requestState }
      const result = (await retrying.callTool(retry as never, { allowInputRequired: true } as never)) as Json
      expect(result.isError).toBeFalsy()
      expect(existsSync(target)).toBe(true)
    } finally {
      await Promise.all([asking.close(), retrying.close()])
    }
  })

  it('denies as before on an instance without TOOLEXEC_SECRET_KEY, and logs what to set', async () => {
    const third = instances[2] as ServiceProcess
    const client = await connect(third)
    try {
      const result = (await client.callTool({
        name: 'Bash',
        arguments: { command: `touch ${path.join(data, 'never.txt')}` },
      })) as Json
      expect(textOf(result)).toBe(
        'Permission to use Bash has been denied: this call needs approval and no approver is connected to answer.',
      )
      expect(third.output()).toContain('MCP clients cannot answer permission asks')
      expect(third.output()).toContain('TOOLEXEC_SECRET_KEY')
    } finally {
      await client.close()
    }
  })
})
