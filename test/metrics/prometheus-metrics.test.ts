// Pins the Prometheus surface operators rely on: Node's process metrics under their standard names,
// HTTP requests by route pattern and status, call duration less the time an approval took, the
// ask, denial, hook-failure and blob-byte counters, and a denial logged with its reason.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'

/** The value of one sample line of the text format (`name{labels} value`), or undefined. */
function sample(body: string, line: string): number | undefined {
  const found = body.split('\n').find((candidate) => candidate.startsWith(`${line} `))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

describe('/metrics', () => {
  it("keeps Node's default metric names and counts HTTP requests by route pattern and status", async () => {
    const { app } = await buildTestApp()
    await app.inject({ url: '/v1/runs/run_nope' })
    await app.inject({ url: '/healthz' })
    await app.inject({ url: '/no/such/route/42' })
    const body = (await app.inject({ url: '/metrics' })).body
    expect(body).toMatch(/^process_cpu_seconds_total /m)
    expect(body).toMatch(/^nodejs_heap_size_used_bytes /m)
    expect(body).not.toContain('toolexec_process_')
    expect(sample(body, 'http_requests_total{method="GET",route="/v1/runs/:run_id",status_code="404"}')).toBe(1)
    expect(sample(body, 'http_requests_total{method="GET",route="/healthz",status_code="200"}')).toBe(1)
    expect(sample(body, 'http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(1)
    expect(body).not.toContain('/no/such/route/42')
    expect(body).toContain('http_request_duration_seconds_bucket{le="0.001",method="GET",route="/healthz"')
  })

  it('counts an ask and its denial, leaves the wait out of the call duration, and logs the reason', async () => {
    const lines: string[] = []
    const { app } = await buildTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line) => lines.push(line) } })
    const created = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        wait: false,
        permission_timeout_ms: 400,
        tool_uses: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'touch late.txt' } }],
      },
    })
    const events = await runCompleted(app, created.json().run_id)
    const completed = events.find((event) => event.type === 'tool.completed')!
    expect(completed.type === 'tool.completed' && completed.duration_ms).toBeGreaterThanOrEqual(350)

    const body = (await app.inject({ url: '/metrics' })).body
    expect(sample(body, 'toolexec_permission_asks_total')).toBe(1)
    expect(sample(body, 'toolexec_permission_denials_total{tool="Bash"}')).toBe(1)
    // The call waited 400 ms for nobody; what it cost itself is far below that.
    expect(sample(body, 'toolexec_tool_call_duration_seconds_count{tool="Bash"}')).toBe(1)
    expect(sample(body, 'toolexec_tool_call_duration_seconds_sum{tool="Bash"}')).toBeLessThan(0.2)

    const denial = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'permission denied')
    expect(denial).toMatchObject({ tool: 'Bash', toolUseId: 't1', runId: created.json().run_id })
    expect(denial.reason).toContain('nobody answered within 400 ms')
  })

  it('counts hook failures by event and the bytes written to blobs', async () => {
    const { app } = await buildTestApp({
      settings: {
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'exit 1', onError: 'allow' }] }] },
      },
    })
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { tool_uses: [{ type: 'tool_use', id: 'big', name: 'Bash', input: { command: 'seq 1 100000' } }] },
    })
    const [blob] = response.json().blobs as Array<{ size: number }>
    expect(blob!.size).toBeGreaterThan(500_000)
    const body = (await app.inject({ url: '/metrics' })).body
    expect(sample(body, 'toolexec_hook_failures_total{event="PreToolUse"}')).toBe(1)
    expect(sample(body, 'toolexec_blob_bytes_total')).toBe(blob!.size)
  })
})
