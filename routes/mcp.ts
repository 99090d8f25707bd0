import { type NodeIncomingMessageLike, toNodeHandler } from '@modelcontextprotocol/node'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { roleCan } from '../src/auth/capability.js'

/** `/mcp`: the Streamable HTTP MCP endpoint (JSON-RPC, so it stays out of the OpenAPI document). */
export const mcpRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    // MCP tools/call runs tools: the whole endpoint is a runner's (docs/adr/0240-key-roles.md).
    config: { capability: 'run' },
    schema: { hide: true, querystring: z.object({ session_id: z.string().min(1).optional() }) },
    handler: async (request, reply) => {
      // The endpoint answers with a web Response (JSON or an SSE stream), written by the SDK's adapter.
      reply.hijack()
      const { session_id } = request.query
      const caller = {
        tenant: request.tenant,
        keyName: request.keyName,
        // An MCP client's user answers the asks of its calls only with a key that may answer asks.
        mayAnswerAsks: roleCan(request.role, 'approve'),
        ...(session_id === undefined ? {} : { sessionId: session_id }),
        logger: request.log,
      }
      const node = toNodeHandler({ fetch: (web, options) => app.mcpEndpoint.fetch(web, caller, options) })
      // A GET or DELETE has a method too: Node leaves it optional only for client-side messages.
      await node(request.raw as NodeIncomingMessageLike, reply.raw, request.body)
    },
  })
}
