/**
 * The ceiling of bench/http-runs.ts: the service as `node dist/server.js` builds it (every plugin
 * and hook, the body schema and response serialiser of POST /v1/runs with the route's own
 * validator and serializer compilers, docs/adr/0429 and 0430), plus one route that
 * answers a constant run result without starting a run. Its ratio to the plain route is the most
 * POST /v1/runs could reach with a run that cost nothing (docs/adr/0311-the-relay-ratios-have-a-ceiling.md).
 *
 *   PORT=… TOOLEXEC_WORKSPACE=… node dist/bench/servers/route-shell-server.js
 */
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { buildApp } from '../../app.js'
import { jsonResponse } from '../../routes/responses.js'
import { createRunValidatorCompiler } from '../../routes/v1/runs/create-run-validator.js'
import { runResultSerializerCompiler } from '../../routes/v1/runs/run-result-serializer.js'
import { CreateRunBodySchema, RunResultSchema } from '../../routes/v1/runs/run-schemas.js'
import { loadConfig } from '../../src/config/load-config.js'

const app = (await buildApp(loadConfig(process.env))).withTypeProvider<ZodTypeProvider>()
app.post('/bench/route-shell', {
  schema: { body: CreateRunBodySchema, response: { 200: jsonResponse('a constant run result', RunResultSchema) } },
  validatorCompiler: createRunValidatorCompiler,
  serializerCompiler: runResultSerializerCompiler,
  handler: async (request) => {
    const results = (request.body.tool_uses ?? []).map((block) => ({
      type: 'tool_result' as const,
      tool_use_id: block.id,
      content: 'No deferred tools match "select:Noop" (0 deferred tools available).',
    }))
    return {
      run_id: 'run_route_shell',
      status: 'completed' as const,
      session_id: 'ses_route_shell',
      results,
      message: { role: 'user' as const, content: results },
      blobs: [],
    }
  },
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
