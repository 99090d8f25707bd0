import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../../src/errors/api-error.js'
import { isSecretName, SECRET_NAME_RULE } from '../../src/secrets/secret-name.js'
import { WRITE_SECRET_EXAMPLES } from '../openapi-examples.js'
import { jsonResponse, problemResponses } from '../responses.js'

/** A value is a credential, not a document: 64 KiB is plenty and bounds what a body may hold. */
const MAX_VALUE_BYTES = 64 * 1024
const BODY_LIMIT = 2 * MAX_VALUE_BYTES

const SecretInfoSchema = z
  .object({
    name: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    updated_by: z.string().describe('The name of the key that wrote it last (never the key)'),
  })
  .meta({ id: 'SecretInfo', description: 'A stored secret, without its value: values are write-only' })

const NameParamsSchema = z.object({ name: z.string().describe(SECRET_NAME_RULE) })

const WriteSecretBodySchema = z
  .strictObject({
    value: z
      .string()
      .min(1, 'value must not be empty')
      .refine(
        (value) => Buffer.byteLength(value, 'utf8') <= MAX_VALUE_BYTES,
        `value must be at most ${MAX_VALUE_BYTES} bytes`,
      )
      .describe('The secret itself; never returned'),
  })
  .meta({ id: 'WriteSecretRequest', examples: WRITE_SECRET_EXAMPLES })

/**
 * The deployment's secrets (docs/mcp.md#secrets, docs/adr/0333-secrets-api.md): admin keys of the
 * tenants allowed by TOOLEXEC_SECRETS_ADMIN_TENANTS write, list and delete them; values go in and
 * never come out. Every change is in the writer's audit trail, without the value.
 */
export const secretsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { adminTenants } = app.config.secrets

  // Before the body is read: a caller who may not write secrets does not get to send one.
  app.addHook('onRequest', async (request) => {
    if (adminTenants !== 'all' && !adminTenants.includes(request.tenant))
      throw new ApiError(
        'role_forbidden',
        `The key "${request.keyName}" belongs to tenant "${request.tenant}": only admin keys of the tenants in TOOLEXEC_SECRETS_ADMIN_TENANTS manage secrets`,
      )
    const name = (request.params as { name?: string } | undefined)?.name
    if (name !== undefined && !isSecretName(name))
      throw new ApiError('invalid_secret_name', `${JSON.stringify(name)} is not a secret name: ${SECRET_NAME_RULE}`)
  })

  function record(
    request: { tenant: string; keyName: string },
    name: string,
    action: 'created' | 'updated' | 'deleted',
  ) {
    const secret = { name, action, key_name: request.keyName }
    app.audit.record({
      kind: 'secret',
      tenant: request.tenant,
      session_id: '',
      run_id: '',
      tool_use_id: '',
      tool: '',
      input: { name, action },
      secret,
    })
    app.log.info({ secret }, 'secret changed')
  }

  app.get('/v1/secrets', {
    config: { capability: 'admin' },
    schema: {
      tags: ['secrets'],
      operationId: 'listSecrets',
      summary: 'The names of the stored secrets, when and by whom they were written (never their values)',
      response: {
        200: jsonResponse('Every stored secret, by name', z.object({ secrets: z.array(SecretInfoSchema) })),
        ...problemResponses(401, 403),
      },
    },
    handler: async () => ({ secrets: await app.secrets.list() }),
  })

  app.put('/v1/secrets/:name', {
    config: { capability: 'admin' },
    bodyLimit: BODY_LIMIT,
    schema: {
      tags: ['secrets'],
      operationId: 'writeSecret',
      summary: 'Create or replace a secret; the value is write-only',
      params: NameParamsSchema,
      body: WriteSecretBodySchema,
      response: {
        200: jsonResponse('Replaced', SecretInfoSchema),
        201: jsonResponse('Created', SecretInfoSchema),
        ...problemResponses(400, 401, 403, 413, 503),
      },
    },
    handler: async (request, reply) => {
      const { name } = request.params
      if (!app.secrets.configured)
        throw new ApiError(
          'secrets_not_configured',
          'Set TOOLEXEC_SECRET_KEY (32 random bytes, base64 or hex: `openssl rand -base64 32`) to store secrets',
        )
      const { created, info } = await app.secrets.write(name, request.body.value, request.keyName)
      record(request, name, created ? 'created' : 'updated')
      return reply.code(created ? 201 : 200).send(info)
    },
  })

  app.delete('/v1/secrets/:name', {
    config: { capability: 'admin' },
    schema: {
      tags: ['secrets'],
      operationId: 'deleteSecret',
      summary: 'Delete a secret; servers and hooks that refer to it fail clearly from their next connection or send',
      params: NameParamsSchema,
      response: { 204: z.undefined().describe('Deleted'), ...problemResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { name } = request.params
      if (!(await app.secrets.remove(name)))
        throw new ApiError('secret_not_found', `No secret named "${name}" is stored`)
      record(request, name, 'deleted')
      return reply.code(204).send()
    },
  })
}
