// Pins the OpenAPI document: valid OpenAPI 3.1, equal to the committed openapi/openapi.json (and
// its generated types), and covering every route of docs/design.md §10.
import { readFileSync } from 'node:fs'
import { validate } from '@readme/openapi-parser'
import { describe, expect, it } from 'vitest'
import { generateDocument, generateTypes } from '../../openapi/generate.js'

const committed = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'))

describe('openapi', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(committed))
    expect(result.valid ? [] : result.errors).toEqual([])
    expect(committed.openapi).toBe('3.1.0')
  })

  it('matches what the routes generate, types included (run `npm run openapi` after changing a route)', async () => {
    const document = await generateDocument()
    expect(document).toEqual(committed)
    const types = readFileSync(new URL('../generated/openapi.d.ts', import.meta.url), 'utf8')
    expect(await generateTypes(document)).toBe(types)
  })

  it('documents every route of the API', () => {
    const operations = Object.entries(committed.paths as Record<string, object>).flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
    )
    expect(operations.sort()).toEqual(
      [
        'POST /v1/runs',
        'GET /v1/runs',
        'GET /v1/audit',
        'GET /v1/runs/{run_id}',
        'POST /v1/runs/{run_id}/cancel',
        'GET /v1/runs/{run_id}/events',
        'POST /v1/runs/{run_id}/permissions/{request_id}',
        'GET /v1/stream',
        'POST /v1/sessions',
        'GET /v1/sessions/{session_id}',
        'DELETE /v1/sessions/{session_id}',
        'PATCH /v1/sessions/{session_id}',
        'GET /v1/tools',
        'GET /v1/blobs/{blob_id}',
        'GET /v1/mcp/servers',
        'POST /v1/mcp/servers/{name}/authorize',
        'GET /v1/mcp/oauth/callback',
        'GET /v1/secrets',
        'PUT /v1/secrets/{name}',
        'DELETE /v1/secrets/{name}',
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
      ].sort(),
    )
    expect(committed.components.schemas.Problem.properties.code.enum).toContain('run_not_found')
    expect(committed.components.schemas.RunEvent).toBeDefined()
  })
})
