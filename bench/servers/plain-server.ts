/**
 * The baseline of bench/http-runs.ts: a plain fastify route that parses the same body as
 * POST /v1/runs and answers a comparable JSON (one tool_result per block), in its own process.
 *
 *   PORT=… node --import tsx bench/servers/plain-server.ts
 */
import Fastify from 'fastify'

type Body = { tool_uses?: { id: string }[] }

const app = Fastify({ bodyLimit: 10 * 1024 * 1024 })
app.get('/healthz', async () => ({ status: 'ok' }))
app.post('/plain', async (request) => {
  const blocks = (request.body as Body).tool_uses ?? []
  return {
    run_id: 'run_plain',
    status: 'completed',
    results: blocks.map((block) => ({ type: 'tool_result', tool_use_id: block.id, content: 'ok' })),
  }
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
