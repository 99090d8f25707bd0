// Pins the API through a client generated from openapi/openapi.json (openapi-typescript types +
// openapi-fetch) against a listening server: sync and async runs, sessions, tools, typed problems.
import createClient from 'openapi-fetch'
import { describe, expect, it } from 'vitest'
import type { paths } from '../generated/openapi.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect } from '../helpers/ws-client.js'

async function setup() {
  const tools = createTestTools()
  const server = await startTestServer({ extraTools: tools.tools })
  return { ...server, tools, client: createClient<paths>({ baseUrl: server.baseUrl }) }
}

describe('generated client', () => {
  it('runs a batch synchronously inside a session and reads the session back', async () => {
    const { client } = await setup()
    const session = await client.POST('/v1/sessions', { body: { cwd: 'app' } })
    expect(session.response.status).toBe(201)
    const sessionId = session.data!.session_id
    const run = await client.POST('/v1/runs', {
      body: {
        session_id: sessionId,
        tool_uses: [
          { type: 'tool_use', id: 'toolu_1', name: 'Echo', input: { text: 'hello' } },
          { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'pwd' } },
        ],
      },
    })
    expect(run.response.status).toBe(200)
    const result = run.data as { results: Array<{ content: unknown }>; message: { role: string } }
    expect(result.results.map((block) => block.content)).toEqual(['hello', session.data!.cwd])
    expect(result.message.role).toBe('user')
    const read = await client.GET('/v1/sessions/{session_id}', { params: { path: { session_id: sessionId } } })
    expect(read.data?.session_id).toBe(sessionId)
  })

  it('starts an async run, follows it over the events socket, and reads the results', async () => {
    const { client, tools, wsUrl } = await setup()
    const accepted = await client.POST('/v1/runs', {
      body: { wait: false, tool_uses: [{ type: 'tool_use', id: 'g', name: 'Gate', input: { key: 'g' } }] },
    })
    expect(accepted.response.status).toBe(202)
    const { run_id, events_url } = accepted.data as { run_id: string; events_url: string }
    const events = connect(`${wsUrl}${events_url}`)
    await events.opened
    tools.open('g', 'through')
    await events.closed
    const run = await client.GET('/v1/runs/{run_id}', { params: { path: { run_id } } })
    expect(run.data).toMatchObject({ status: 'completed', results: [{ tool_use_id: 'g', content: 'through' }] })
  })

  it('lists tools and returns typed problem+json errors', async () => {
    const { client } = await setup()
    const tools = await client.GET('/v1/tools')
    expect(tools.data?.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Bash', 'Read', 'Echo']))
    const missing = await client.GET('/v1/runs/{run_id}', { params: { path: { run_id: 'run_missing' } } })
    expect(missing.response.status).toBe(404)
    expect(missing.response.headers.get('content-type')).toContain('application/problem+json')
    expect(missing.error).toMatchObject({ code: 'run_not_found', status: 404, title: 'Run not found' })
    const duplicate = await client.POST('/v1/runs', {
      body: {
        tool_uses: [
          { type: 'tool_use', id: 'same', name: 'Echo', input: { text: 'a' } },
          { type: 'tool_use', id: 'same', name: 'Echo', input: { text: 'b' } },
        ],
      },
    })
    expect(duplicate.error).toMatchObject({ code: 'duplicate_tool_use_id', status: 400 })
  })
})
