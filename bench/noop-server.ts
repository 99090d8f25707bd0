/**
 * The service with one extra no-op tool (`Noop`), configured from the environment like
 * server.ts: the process bench/redis-overhead.ts starts twice, in memory mode and on Redis.
 */
import { z } from 'zod'
import { buildApp } from '../app.js'
import { loadConfig } from '../src/config/load-config.js'
import { buildTool } from '../src/tool/build-tool.js'

const noop = buildTool({
  name: 'Noop',
  ruleFamily: 'none',
  inputSchema: z.strictObject({}),
  maxResultSizeChars: 100_000,
  description: async () => 'Does nothing',
  prompt: async () => 'Does nothing',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async () => ({ data: 'ok' }),
})

const config = loadConfig(process.env)
const app = await buildApp(config, { extraTools: [noop] })
await app.listen({ host: config.host, port: config.port })
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
