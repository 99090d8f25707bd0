import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'

/** `/mcp`: the Streamable HTTP MCP endpoint (JSON-RPC, so it stays out of the OpenAPI document). */
export const mcpRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    // MCP tools/call runs tools: the whole endpoint is a runner's (docs/adr/0240-key-roles.md).
    config: { capability: 'run' },
    schema: { hide: true, querystring: z.object({ session_id: z.string().min(1).optional() }) },
    handler: async (request, reply) => {
      // The MCP transport writes the response itself (JSON or an SSE stream).
      reply.hijack()
      const { session_id } = request.query
      await app.mcpEndpoint.handle(request.raw, reply.raw, request.body, {
        tenant: request.tenant,
        ...(session_id === undefined ? {} : { sessionId: session_id }),
        logger: request.log,
      })
    },
  })
}
