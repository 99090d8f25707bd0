import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import type { OpenAPIV3_1 } from 'openapi-types'
import { SERVICE_INFO } from '../src/config/service-info.js'
import { mergeIoSchemas } from './swagger-io-schemas.js'

/** OpenAPI 3.1 generated from the route schemas, at /openapi.json, with Swagger UI at /docs. */
export const swaggerPlugin = fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: SERVICE_INFO.name,
          version: SERVICE_INFO.version,
          description:
            'Executes the tool_use blocks a model emits and returns the tool_result blocks to send back. ' +
            'Events: see docs/events.md.',
        },
        components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
        security: [{ bearerAuth: [] }],
        tags: [
          { name: 'runs', description: 'Execute tool_use blocks' },
          { name: 'sessions', description: 'Tool-use context carried between runs' },
          { name: 'tools', description: 'The tool pool and stored outputs' },
          { name: 'operations', description: 'Health, readiness and metrics' },
          { name: 'secrets', description: "The deployment's write-only secrets (admin keys)" },
        ],
      },
      transform: jsonSchemaTransform,
      transformObject: (document) => mergeIoSchemas(jsonSchemaTransformObject(document) as OpenAPIV3_1.Document),
    })
    await app.register(swaggerUi, { routePrefix: '/docs' })
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  },
  { name: 'swagger' },
)
