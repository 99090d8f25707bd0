// Pins OpenTelemetry tracing: a `toolexec.run` span per run, a child of the request's W3C
// traceparent, and an `execute_tool {name}` span per call with the GenAI attributes and
// `error.type`; HTTP hooks get the call's traceparent header and MCP calls `params._meta.traceparent`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client, InMemoryTransport } from '@modelcontextprotocol/client'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { context, propagation, trace } from '@opentelemetry/api'
import { NodeSDK, tracing } from '@opentelemetry/sdk-node'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { callServerTool } from '../../src/mcp/client/call-server-tool.js'
import { startCallSpan } from '../../src/telemetry/call-span.js'
import { startRunSpan } from '../../src/telemetry/run-span.js'
import { tracesRequested } from '../../src/telemetry/traces-requested.js'
import { setTracingEnabled } from '../../src/telemetry/tracing-switch.js'
import { startTestServer } from '../helpers/start-test-server.js'

const exporter = new tracing.InMemorySpanExporter()
let sdk: NodeSDK

beforeAll(() => {
  // The SDK server.ts starts, with the in-memory exporter instead of OTLP.
  sdk = new NodeSDK({ serviceName: 'toolexec-test', spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] })
  sdk.start()
  setTracingEnabled(true)
})
afterAll(async () => {
  setTracingEnabled(false)
  await sdk.shutdown()
  trace.disable()
  context.disable()
  propagation.disable()
})
beforeEach(() => exporter.reset())

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN_ID = '00f067aa0ba902b7'
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`

/** An HTTP hook endpoint that records the headers of every request and has no opinion. */
async function recordingHook() {
  const received: IncomingHttpHeaders[] = []
  const server = createServer((request, response) => {
    received.push(request.headers)
    request.resume()
    request.on('end', () => response.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received }
}

describe('spans of a run', () => {
  it('makes a run span under the caller and an execute_tool span per call, and passes the trace to HTTP hooks', async () => {
    const hook = await recordingHook()
    const directory = await mkdtemp(path.join(tmpdir(), 'toolexec-tracing-'))
    onTestFinished(() => rm(directory, { recursive: true, force: true }))
    const settingsPath = path.join(directory, 'settings.json')
    const settings = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'http', url: hook.url }] }] } }
    await writeFile(settingsPath, JSON.stringify(settings))
    const server = await startTestServer({ env: { TOOLEXEC_SETTINGS: settingsPath } })
    const response = await fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
      body: JSON.stringify({
        tool_uses: [
          { type: 'tool_use', id: 'ok', name: 'Bash', input: { command: 'echo hi' } },
          { type: 'tool_use', id: 'bad', name: 'Bash', input: { command: 'exit 3' } },
        ],
        cancel_on_error: 'none',
      }),
    })
    expect(response.status).toBe(200)

    const spans = exporter.getFinishedSpans()
    const run = spans.find((span) => span.name === 'toolexec.run')!
    expect(run.spanContext().traceId).toBe(TRACE_ID)
    expect(run.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID)
    expect(run.attributes['toolexec.run.status']).toBe('completed')
    const calls = spans.filter((span) => span.name === 'execute_tool Bash')
    expect(calls).toHaveLength(2)
    const [ok, bad] = ['ok', 'bad'].map((id) => calls.find((span) => span.attributes['gen_ai.tool.call.id'] === id)!)
    for (const call of [ok!, bad!]) {
      expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId)
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'Bash',
        'gen_ai.tool.type': 'function',
      })
    }
    expect(ok!.attributes['error.type']).toBeUndefined()
    expect(bad!.attributes['error.type']).toBe('tool_error')

    // Each hook request carries the traceparent of the call it was made for.
    const hookParents = hook.received.map((headers) => String(headers.traceparent).split('-')[2])
    expect(hook.received.map((headers) => String(headers.traceparent).split('-')[1])).toEqual([TRACE_ID, TRACE_ID])
    expect(hookParents.sort()).toEqual([ok!.spanContext().spanId, bad!.spanContext().spanId].sort())
  })

  it('starts a new trace for a request without traceparent', async () => {
    const server = await startTestServer()
    await fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_uses: [{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'true' } }] }),
    })
    const run = exporter.getFinishedSpans().find((span) => span.name === 'toolexec.run')!
    expect(run.parentSpanContext).toBeUndefined()
    expect(run.spanContext().traceId).not.toBe(TRACE_ID)
  })
})

describe('MCP calls', () => {
  it('carry the call span as params._meta.traceparent', async () => {
    const server = new Server({ name: 'recorder', version: '1.0.0' }, { capabilities: { tools: {} } })
    const metas: unknown[] = []
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      metas.push(request.params._meta)
      return { content: [] }
    })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'toolexec-test', version: '1.0.0' })
    await client.connect(clientSide)
    onTestFinished(() => client.close())

    const run = startRunSpan('run-1')
    const span = startCallSpan(run.context, 'mcp__recorder__echo', 'toolu_1')
    await span.run(
      () =>
        callServerTool(client, 'echo', {}, { signal: new AbortController().signal }, { idleMs: 5000, totalMs: 5000 }),
      undefined,
    )
    span.end()
    run.end('completed')
    const call = exporter.getFinishedSpans().find((finished) => finished.name === 'execute_tool mcp__recorder__echo')!
    expect(call.attributes['gen_ai.tool.type']).toBe('extension')
    const { traceId, spanId } = call.spanContext()
    expect(metas).toEqual([expect.objectContaining({ traceparent: `00-${traceId}-${spanId}-01` })])
  })
})

describe('tracesRequested', () => {
  it.each([
    [{}, false],
    [{ OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }, false],
  ])('%j → %s', (env, expected) => {
    expect(tracesRequested(env)).toBe(expected)
  })
})
