// Pins what one 10-call no-op run costs on Redis, counted by MONITOR on a real redis-server
// against a real service process: each write of a run's life is one command (a script), not a
// MULTI block, and a new run's first events need no read of its stream
// (docs/adr/0370-redis-writes-as-one-script-each.md, docs/adr/0371-new-runs-append-without-reading-the-stream-end.md).
// Before those, the same run cost about 74 commands.
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js'

const CALLS = 10
const body = JSON.stringify({
  tool_uses: Array.from({ length: CALLS }, (_unused, index) => ({
    type: 'tool_use',
    id: `toolu_${index}`,
    name: 'ToolSearch',
    input: { query: 'select:Noop' },
  })),
})

/** Client commands by name as MONITOR reports them; what a script runs inside Redis (`lua`) is no round trip. */
async function monitor(port: number) {
  const socket: Socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  const commands: string[] = []
  let pending = ''
  let started: () => void
  const monitoring = new Promise<void>((resolve) => {
    started = resolve
  })
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const lines = pending.split('\r\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      if (line === '+OK') started()
      const match = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line)
      if (match && match[1] !== 'lua') commands.push(match[2]!.toLowerCase())
    }
  })
  socket.write('MONITOR\r\n')
  await monitoring
  return { commands, stop: () => socket.destroy() }
}

describe.skipIf(redisSkipReason !== undefined)('Redis commands of one run', () => {
  let redis: RedisServer
  let service: ServiceProcess
  let client: Redis
  let data: string

  beforeAll(async () => {
    redis = await startRedisServer()
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-redis-commands-'))
    service = await startServiceProcess({
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
      TOOLEXEC_SANDBOX: 'off',
    })
    client = new Redis(redis.url)
  }, 90_000)

  afterAll(async () => {
    client?.disconnect()
    await service?.stop()
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  const run = async () => {
    const response = await fetch(`${service.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(200)
    return (await response.json()) as { run_id: string; results: unknown[] }
  }

  /** Audit records in Redis, over every tenant: they are written after the answer, in batches. */
  const auditRecords = async () => {
    // One entry per tenant and batch, its record count in field `n` (docs/adr/0510).
    const keys = await client.keys('toolexec:audit:*')
    let total = 0
    for (const key of keys) {
      for (const [, fields] of await client.xrange(key, '-', '+')) total += fields[0] === 'n' ? Number(fields[1]) : 1
    }
    return total
  }

  /** No run is open: the lease's release, a run's last command, has taken it off `runs:running`. */
  const drained = () => vi.waitFor(async () => expect(await client.hlen('toolexec:runs:running')).toBe(0))

  it('costs at most 10 commands, the audit trail included', async () => {
    // The first run loads the scripts (EVAL once, EVALSHA after) and warms the connection.
    await run()
    await vi.waitFor(async () => expect(await auditRecords()).toBeGreaterThanOrEqual(CALLS))
    // Its last writes are not counted as the next run's (docs/adr/0575-commands-per-run-counted-once-the-load-has-drained.md).
    await drained()
    const before = await auditRecords()
    const seen = await monitor(redis.port)
    try {
      const answer = await run()
      expect(answer.results).toHaveLength(CALLS)
      // Everything the run writes has landed once its audit records have and its lease is released.
      await vi.waitFor(async () => expect(await auditRecords()).toBe(2 * before))
      await drained()
      const own = seen.commands.filter((name) => !['keys', 'xrange', 'hlen'].includes(name))
      // Lease, session, record, results, events, audit, completion, session end, run.completed,
      // release: one command each (docs/adr/0575).
      expect(own.length, own.join(' ')).toBeLessThanOrEqual(10)
      expect(own).not.toContain('multi')
      expect(own).not.toContain('xrevrange')
    } finally {
      seen.stop()
    }
  }, 60_000)
})
