/**
 * Streams the model's turn into toolexec while it is being generated (docs/events.md, GET
 * /v1/stream): each Messages API stream event is forwarded as it arrives, a tool call starts as
 * soon as its block is complete, and the results come back on the same socket. The stream is
 * recorded here so the example runs without an Anthropic API key; with one, forward the events of
 * `anthropic.messages.stream(request)` the same way. Uses the `ws` package on Node 20.
 *
 * Run it against a running toolexec: TOOLEXEC_URL=http://127.0.0.1:8080 npx tsx examples/stream-turn.ts
 */
import type Anthropic from '@anthropic-ai/sdk'
import WebSocket from 'ws'

const baseUrl = process.env.TOOLEXEC_URL ?? 'http://127.0.0.1:8080'
const key = process.env.TOOLEXEC_API_KEY
const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {}

/** What `anthropic.messages.stream(request)` yielded, recorded: some text, then one tool call in two pieces. */
const recorded: Anthropic.RawMessageStreamEvent[] = [
  {
    type: 'message_start',
    message: {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      container: null,
      diagnostics: null,
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      usage: {
        cache_creation: null,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
        inference_geo: null,
        input_tokens: 380,
        output_tokens: 1,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: 'standard',
        speed: null,
      },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Counting the files.' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: {}, caller: { type: 'direct' } },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"command": "echo str' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'eamed"}' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
    usage: {
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      input_tokens: null,
      output_tokens: 42,
      output_tokens_details: null,
      server_tool_use: null,
    },
  },
  { type: 'message_stop' },
]

const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/stream`, { headers })
const results: unknown[] = []
socket.on('open', () => {
  socket.send(JSON.stringify({ type: 'run.start' }))
  for (const event of recorded) socket.send(JSON.stringify(event))
})
socket.on('message', (data) => {
  const event = JSON.parse(String(data)) as { type: string; result?: unknown; code?: string; message?: string }
  if (event.type === 'tool.result') results.push(event.result)
  if (event.type === 'error') console.error(`${event.code}: ${event.message}`)
})
// The server closes with 1000 after run.completed: the results are the next user message's content.
socket.on('close', () => console.log(JSON.stringify({ role: 'user', content: results })))
