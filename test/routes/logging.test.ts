// Pins the logs: JSON lines carrying request ids and run ids, with tool inputs and access tokens
// redacted wherever they appear, and a debug line for a tool name that differs only in case.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { createTestTools } from '../helpers/test-tools.js'

describe('logging', () => {
  it('tags run logs with request and run ids and never writes tool inputs or tokens', async () => {
    const lines: string[] = []
    const tools = createTestTools()
    const { app } = await buildTestApp({
      extraTools: tools.tools,
      env: { LOG_LEVEL: 'info', TOOLEXEC_API_KEYS: 'acme:very-secret-key' },
      logStream: { write: (line) => lines.push(line) },
    })
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: { authorization: 'Bearer very-secret-key', 'x-request-id': 'req-42' },
      payload: { tool_uses: [{ type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'hunter2' } }] },
    })
    const { run_id } = response.json()
    await app.inject({ url: '/v1/tools?access_token=very-secret-key' })
    app.log.info({ input: { password: 'hunter2' }, tool_uses: [{ input: { password: 'hunter2' } }] }, 'explicit')
    const records = lines.map((line) => JSON.parse(line))
    const runLines = records.filter((record) => record.runId === run_id)
    expect(runLines.map((record) => record.msg)).toEqual(['run started', 'run finished'])
    expect(runLines.every((record) => record.reqId === 'req-42')).toBe(true)
    const all = lines.join('\n')
    expect(all).not.toContain('hunter2')
    expect(all).not.toContain('very-secret-key')
    expect(records.find((record) => record.msg === 'explicit')).toMatchObject({
      input: '[redacted]',
      tool_uses: [{ input: '[redacted]' }],
    })
  })

  it('writes a debug line naming the tool a call meant when its name differs only in case', async () => {
    const lines: string[] = []
    const { app } = await buildTestApp({
      extraTools: createTestTools().tools,
      env: { LOG_LEVEL: 'debug' },
      logStream: { write: (line) => lines.push(line) },
    })
    await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { tool_uses: [{ type: 'tool_use', id: 'c1', name: 'echo', input: { text: 'x' } }] },
    })
    const slips = lines.map((line) => JSON.parse(line)).filter((entry) => entry.meant !== undefined)
    expect(slips).toMatchObject([
      {
        level: 20,
        tool: 'echo',
        meant: 'Echo',
        toolUseId: 'c1',
        msg: 'tool name differs only in case from a tool of the pool',
      },
    ])
  })
})
