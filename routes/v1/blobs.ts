import { createReadStream } from 'node:fs'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../../src/errors/api-error.js'
import { problemResponses } from '../responses.js'

/** GET /v1/blobs/{blob_id}: the full output behind a persisted-output preview, for its tenant only. */
export const blobsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/v1/blobs/:blob_id', {
    schema: {
      tags: ['tools'],
      operationId: 'getBlob',
      summary: 'Download a stored result',
      params: z.object({ blob_id: z.string().min(1).max(256) }),
      response: {
        200: {
          description: 'The blob: text for .txt, a JSON array of content blocks for .json',
          content: { 'text/plain': { schema: z.string() }, 'application/json': { schema: z.string() } },
        },
        ...problemResponses(401, 404),
      },
    },
    handler: async (request, reply) => {
      const blob = await app.blobStore.stat(request.tenant, request.params.blob_id).catch(() => null)
      if (!blob) throw new ApiError('blob_not_found', `No blob ${request.params.blob_id}`)
      const type = blob.blobId.endsWith('.json') ? 'application/json' : 'text/plain; charset=utf-8'
      // A stream bypasses serialisation; the type provider only knows the documented string schema.
      return reply
        .type(type)
        .header('content-length', blob.size)
        .send(createReadStream(blob.path) as never)
    },
  })
}
