import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ClientToolDefinitionSchema as ClientToolSchema } from '../../src/tool/client-tool-definition.js'
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

// docs/adr/0141-client-tool-definitions.md: the API knows these tools' schemas.
const ClientToolDefinitionSchema = ClientToolSchema.meta({
  id: 'ClientToolDefinition',
  description:
    'A Messages API client tool (`bash_20250124`, `text_editor_20250728`, `memory_20250818`), with its options',
})

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
          z.object({ tools: z.array(z.union([ToolDefinitionSchema, ClientToolDefinitionSchema])) }),
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
