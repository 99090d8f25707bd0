/**
 * One turn of an agent loop with @anthropic-ai/sdk types end to end and no cast (docs/clients.md):
 * the assistant message the Messages API returned goes to toolexec as it is, and the next
 * Messages request is built from the run's `.message`. The assistant message is recorded here
 * instead of fetched, so the example runs without an API key; toolexec itself is real, started
 * on a free loopback port and called through the client generated from openapi/openapi.json.
 *
 * Run it: npx tsx examples/agent-loop.ts
 */
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type Anthropic from '@anthropic-ai/sdk'
import createClient from 'openapi-fetch'
import { buildApp } from '../app.js'
import { loadConfig } from '../src/config/load-config.js'
import type { paths } from '../test/generated/openapi.js'

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

/** Executes the recorded turn through toolexec at `baseUrl`; answers the next Messages request. */
export async function nextRequest(baseUrl: string): Promise<Anthropic.MessageCreateParamsNonStreaming> {
  const toolexec = createClient<paths>({ baseUrl })
  const { data: pool } = await toolexec.GET('/v1/tools')
  const tools: Anthropic.ToolUnion[] = pool?.tools ?? []
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is in the workspace?' }]

  messages.push({ role: 'assistant', content: recorded.content })
  const { data, error } = await toolexec.POST('/v1/runs', { body: { message: recorded } })
  if (error) throw new Error(`toolexec: ${error.detail}`)
  // 200 (the run is over) and 202 (wait: false) share one success type: narrow to the 200.
  if (!('message' in data)) throw new Error('toolexec answered 202; this request waits for the results')
  messages.push(data.message)

  return { model: recorded.model, max_tokens: 1024, tools, messages }
}

async function main(): Promise<void> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-example-'))
  const app = await buildApp(
    loadConfig({
      TOOLEXEC_WORKSPACE: path.join(scratch, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(scratch, 'blobs'),
      TOOLEXEC_SANDBOX: 'off',
      LOG_LEVEL: 'silent',
    }),
  )
  try {
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as AddressInfo
    const request = await nextRequest(`http://127.0.0.1:${port}`)
    process.stdout.write(`${JSON.stringify(request.messages.at(-1))}\n`)
  } finally {
    await app.close()
    await rm(scratch, { recursive: true, force: true })
  }
}

await main()
