import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'

/** GET /metrics in the Prometheus text format. */
export const metricsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/metrics', {
    schema: {
      tags: ['operations'],
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      security: [],
      response: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } } },
    },
    handler: async (_request, reply) =>
      reply.type(app.metrics.registry.contentType).send(await app.metrics.registry.metrics()),
  })
}
