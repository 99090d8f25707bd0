import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../../../src/errors/api-error.js'
import type { SessionRecord } from '../../../src/stores/session-store.js'
import { DEFAULT_TOOLSETS } from '../../../src/tool/toolset.js'
import { jsonResponse, problemResponses } from '../../responses.js'
import {
  CreateSessionBodySchema,
  PatchSessionBodySchema,
  SessionParamsSchema,
  SessionSchema,
} from './session-schemas.js'

/** POST /v1/sessions, GET, PATCH and DELETE /v1/sessions/{session_id}. */
export const sessionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const view = (session: SessionRecord) => ({
    session_id: session.sessionId,
    cwd: session.cwd,
    permission_mode: session.permissionContext.mode,
    permissions: {
      allow: [...(session.permissionContext.alwaysAllowRules.session ?? [])],
      deny: [...(session.permissionContext.alwaysDenyRules.session ?? [])],
      ask: [...(session.permissionContext.alwaysAskRules.session ?? [])],
    },
    additional_directories: [...session.permissionContext.additionalWorkingDirectories],
    ...(session.toolsets === undefined ? {} : { toolsets: [...session.toolsets] }),
    ...(session.textEditor === undefined ? {} : { text_editor: session.textEditor }),
    todos: session.todos.map((todo) => ({ ...todo })),
    files_read: session.readFileState.size,
    ...(session.activeRunId === undefined ? {} : { active_run_id: session.activeRunId }),
    created_at: session.createdAt,
    expires_at: new Date(app.sessions.expiresAt(session)).toISOString(),
  })

  app.post('/v1/sessions', {
    schema: {
      tags: ['sessions'],
      operationId: 'createSession',
      summary: 'Create a session',
      body: CreateSessionBodySchema,
      response: { 201: jsonResponse('The new session', SessionSchema), ...problemResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const body = request.body ?? {}
      const toolsets = body.toolsets ?? app.settings.toolsets ?? DEFAULT_TOOLSETS
      // A setting that could never take effect is refused, not kept (docs/adr/0289).
      if (body.text_editor !== undefined && !toolsets.includes('anthropic_client'))
        throw new ApiError(
          'invalid_request',
          `text_editor applies to the anthropic_client tools, which this session would not have (toolsets: ${toolsets.join(', ')}): add "anthropic_client" to toolsets or drop text_editor`,
        )
      app.toolPool.checkSessionRules(body.permissions, toolsets)
      return reply.code(201).send(view(await app.sessions.create(request.tenant, body)))
    },
  })

  app.get('/v1/sessions/:session_id', {
    schema: {
      tags: ['sessions'],
      operationId: 'getSession',
      summary: 'Read a session',
      params: SessionParamsSchema,
      response: { 200: jsonResponse('The session', SessionSchema), ...problemResponses(401, 404) },
    },
    handler: async (request) => view(await app.sessions.get(request.tenant, request.params.session_id)),
  })

  app.delete('/v1/sessions/:session_id', {
    schema: {
      tags: ['sessions'],
      operationId: 'deleteSession',
      summary: 'Delete a session',
      params: SessionParamsSchema,
      response: { 204: z.undefined().describe('Deleted'), ...problemResponses(401, 404) },
    },
    handler: async (request, reply) => {
      const deleted = await app.sessions.delete(request.tenant, request.params.session_id)
      if (!deleted) throw new ApiError('session_not_found', `No session ${request.params.session_id}`)
      // Its shell stops now, background jobs included, not at the next sweep (docs/adr/0237).
      await app.endClientToolState(request.tenant, request.params.session_id)
      return reply.code(204).send()
    },
  })

  app.patch('/v1/sessions/:session_id', {
    // Rules decide what runs unasked: changing them is an approver's act (docs/adr/0240-key-roles.md).
    config: { capability: 'approve' },
    schema: {
      tags: ['sessions'],
      operationId: 'updateSession',
      summary: "Replace a session's own permission rules",
      description:
        'Checked as at creation (syntax, rules that can never match, size). Refused with 409 while a run holds the session.',
      params: SessionParamsSchema,
      body: PatchSessionBodySchema,
      response: { 200: jsonResponse('The session', SessionSchema), ...problemResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request) => {
      const { session_id } = request.params
      const current = await app.sessions.get(request.tenant, session_id)
      const rules = request.body.permissions
      app.toolPool.checkSessionRules(rules, current.toolsets ?? app.settings.toolsets ?? DEFAULT_TOOLSETS)
      return view(await app.sessions.replaceRules(request.tenant, session_id, rules))
    },
  })
}
