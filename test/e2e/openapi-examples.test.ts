// Pins the examples of openapi/openapi.json: every operation with a body has request examples,
// each gets its documented 2xx from a listening server, and every response example is valid
// against its schema.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'
import { askingTool } from '../helpers/test-tools.js'

type Schema = { $ref?: string; anyOf?: Schema[]; examples?: unknown[] }
type Media = { schema: Schema; example?: unknown; examples?: Record<string, { value: unknown }> }
type Operation = { requestBody?: { content: Record<string, Media> }; responses: Record<string, unknown> }

const document = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'))
const components: Record<string, Schema> = document.components.schemas
const component = (schema: Schema) => (schema.$ref ? components[schema.$ref.split('/').at(-1)!] : undefined)

function requestExamples(media: Media): unknown[] {
  const fromMedia = [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(media.examples ?? {}).map((e) => e.value),
  ]
  const schemas = [media.schema, ...(media.schema.anyOf ?? [])]
  return [
    ...fromMedia,
    ...schemas.flatMap((schema) => [...(schema.examples ?? []), ...(component(schema)?.examples ?? [])]),
  ]
}

const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([route, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route, method: method.toUpperCase(), operation })),
)

describe('OpenAPI examples', () => {
  it('has request examples that get the documented status from a listening server', async () => {
    const { baseUrl } = await startTestServer({
      extraTools: [askingTool],
      env: { TOOLEXEC_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') },
    })
    const call = (method: string, url: string, body?: unknown) =>
      fetch(`${baseUrl}${url}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    /** An async run with one open ask, for the routes that need a run (or an ask) to exist. */
    async function openAsk() {
      const tool_uses = [{ type: 'tool_use', id: 'a', name: 'Ask', input: { name: 'x' } }]
      const { run_id } = (await (await call('POST', '/v1/runs', { wait: false, tool_uses })).json()) as {
        run_id: string
      }
      for (;;) {
        const run = (await (await call('GET', `/v1/runs/${run_id}`)).json()) as {
          permission_requests: { request_id: string }[]
        }
        if (run.permission_requests.length > 0) return { run_id, request_id: run.permission_requests[0]!.request_id }
        await sleep(10)
      }
    }
    /** A stored secret: writing an example over it is the documented 200 (replaced). */
    async function existingSecret() {
      await call('PUT', '/v1/secrets/github-token', { value: 'first' })
      return { name: 'github-token' }
    }
    const sent: string[] = []
    for (const { route, method, operation } of operations.filter(({ operation }) => operation.requestBody)) {
      const examples = requestExamples(operation.requestBody!.content['application/json']!)
      expect(examples.length, `${method} ${route} has request examples`).toBeGreaterThan(0)
      const documented = Object.keys(operation.responses).find((status) => status.startsWith('2'))
      for (const example of examples) {
        const params = route.includes('{name}')
          ? await existingSecret()
          : route.includes('{session_id}')
            ? {
                session_id: ((await (await call('POST', '/v1/sessions', {})).json()) as { session_id: string })
                  .session_id,
              }
            : route.includes('{')
              ? await openAsk()
              : {}
        const url = route.replace(/\{(\w+)\}/g, (_, name: string) => (params as Record<string, string>)[name]!)
        const response = await call(method, url, example)
        expect(`${method} ${route} ${response.status}`, JSON.stringify(example)).toBe(
          `${method} ${route} ${documented}`,
        )
        sent.push(`${method} ${route}`)
      }
    }
    expect(new Set(sent)).toEqual(
      new Set([
        'POST /v1/runs',
        'POST /v1/sessions',
        'POST /v1/runs/{run_id}/cancel',
        'POST /v1/runs/{run_id}/permissions/{request_id}',
        'PATCH /v1/sessions/{session_id}',
        'PUT /v1/secrets/{name}',
      ]),
    )
  })

  it('has response examples that match their schemas', () => {
    const ajv = new Ajv2020({ strict: false })
    const documented = ['RunResult', 'RunAccepted', 'Run', 'Problem']
    for (const [name, schema] of Object.entries(components).filter(([, schema]) => schema.examples)) {
      const validate = ajv.compile({ ...schema, components: document.components })
      for (const example of schema.examples!) expect(validate(example) ? [] : validate.errors, name).toEqual([])
    }
    for (const name of documented) expect(components[name]?.examples?.length, name).toBeGreaterThan(0)
  })
})
