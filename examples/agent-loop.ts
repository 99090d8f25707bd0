/**
 * One turn of an agent loop with @anthropic-ai/sdk types end to end and no cast (docs/clients.md):
 * the assistant message the Messages API returned goes to toolexec as it is, and the next
 * Messages request is built from the run's `.message`. The assistant message is recorded here
 * instead of fetched, so the example runs without an Anthropic API key; toolexec is real, called
 * through the client generated from its OpenAPI document (docs/clients.md).
 *
 * Run it against a running toolexec: TOOLEXEC_URL=http://127.0.0.1:8080 npx tsx examples/agent-loop.ts
 */
import type Anthropic from '@anthropic-ai/sdk'
import createClient from 'openapi-fetch'
import type { paths } from '../test/generated/openapi.js' // yours: './openapi.js'

/** What `anthropic.messages.create(request)` answered, recorded: thinking, text, a server tool and two tool calls. */
const recorded: Anthropic.Message = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  container: null,
  diagnostics: null,
  stop_reason: 'tool_use',
  stop_sequence: null,
  stop_details: null,
  usage: {
    cache_creation: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    inference_geo: null,
    input_tokens: 412,
    output_tokens: 96,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
  },
  content: [
    { type: 'thinking', thinking: 'Look around first.', signature: 'c2lnbmF0dXJl' },
    { type: 'text', text: 'Let me check the workspace.', citations: null },
    {
      type: 'server_tool_use',
      id: 'srvtoolu_01',
      name: 'web_search',
      input: { query: 'toolexec' },
      caller: { type: 'direct' },
    },
    {
      type: 'tool_use',
      id: 'toolu_01',
      name: 'Bash',
      input: { command: 'echo hello from toolexec' },
      caller: { type: 'direct' },
    },
    { type: 'tool_use', id: 'toolu_02', name: 'Glob', input: { pattern: '*' }, caller: { type: 'direct' } },
  ],
}

const baseUrl = process.env.TOOLEXEC_URL ?? 'http://127.0.0.1:8080'
const key = process.env.TOOLEXEC_API_KEY
const toolexec = createClient<paths>({ baseUrl, headers: key ? { authorization: `Bearer ${key}` } : {} })

const { data: pool } = await toolexec.GET('/v1/tools')
const tools: Anthropic.ToolUnion[] = pool?.tools ?? []
const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is in the workspace?' }]

messages.push({ role: 'assistant', content: recorded.content })
const { data, error } = await toolexec.POST('/v1/runs', { body: { message: recorded } })
if (error) throw new Error(`toolexec: ${error.detail}`)
// 200 (the run is over) and 202 (wait: false) share one success type: narrow to the 200.
if (!('message' in data)) throw new Error('toolexec answered 202; this request waits for the results')
messages.push(data.message)

// The next turn: `await anthropic.messages.create(next)` with your client.
const next: Anthropic.MessageCreateParamsNonStreaming = { model: recorded.model, max_tokens: 1024, tools, messages }
console.log(JSON.stringify(next.messages.at(-1)))
