import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { jsonResponse, problemResponses } from '../responses.js'

const ToolDefinitionSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    input_schema: z
      .looseObject({ type: z.literal('object') })
      .describe('JSON Schema of the input; always an object schema, as the Messages API requires'),
    strict: z.boolean().optional(),
    defer_loading: z.boolean().optional(),
  })
  .meta({ id: 'ToolDefinition', description: 'An Anthropic API tool definition' })

/** GET /v1/tools: the pool a session's runs use, ready to send as the `tools` of a Messages request. */
export const toolsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/v1/tools', {
    schema: {
      tags: ['tools'],
      operationId: 'listTools',
      summary: 'The tool pool as API tool definitions',
      querystring: z.object({ session_id: z.string().min(1).optional() }),
      response: {
        200: jsonResponse(
          'Send these as the `tools` of a Messages request',
          z.object({ tools: z.array(ToolDefinitionSchema) }),
        ),
        ...problemResponses(401, 404),
      },
    },
    handler: async (request) => {
      const { session_id } = request.query
      const context = session_id
        ? app.sessions.contextFor(await app.sessions.get(request.tenant, session_id))
        : { permissionContext: app.sessions.defaultPermissionContext() }
      return { tools: await app.toolPool.definitionsFor(context) }
    },
  })
}
