// Pins MCP tools inside the service: listed by GET /v1/tools with their schema verbatim, run by POST /v1/runs, filtered by deny rules.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { CLIENT_INFO, FIXTURE_SERVER, tempDir } from './mcp-test-helpers.js'

describe('MCP tools in the service', () => {
  let manager: McpManager
  let testApp: TestApp

  beforeAll(async () => {
    const log = path.join(await tempDir('service'), 'events.log')
    manager = createMcpManager({
      servers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: log } } },
      clientInfo: CLIENT_INFO,
    })
    await manager.ready()
    testApp = await buildTestApp({
      lifetime: 'manual',
      mcpTools: manager.tools(),
      settings: { permissions: { allow: ['mcp__fixture'], deny: ['mcp__fixture__die'] } },
    })
  })

  afterAll(async () => {
    await testApp?.close()
    await manager?.close()
  })

  it('lists MCP tools deferred, with the server schema verbatim, minus denied ones', async () => {
    // A session's pool carries the operator's rules (the deny of mcp__fixture__die).
    const session = await testApp.app.inject({ method: 'POST', url: '/v1/sessions', payload: {} })
    const sessionId = session.json().session_id as string
    const response = await testApp.app.inject({ method: 'GET', url: `/v1/tools?session_id=${sessionId}` })
    const tools = response.json().tools as Array<{ name: string; input_schema: unknown; defer_loading?: boolean }>
    const echo = tools.find((tool) => tool.name === 'mcp__fixture__echo')
    expect(echo).toMatchObject({
      defer_loading: true,
      input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    })
    expect(tools.find((tool) => tool.name === 'mcp__fixture__always')?.defer_loading).toBeUndefined()
    expect(tools.some((tool) => tool.name === 'mcp__fixture__die')).toBe(false)
  })

  it('runs MCP calls through POST /v1/runs with the engine validation wording', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        tool_uses: [
          { type: 'tool_use', id: 'toolu_1', name: 'mcp__fixture__echo', input: { text: 'through the service' } },
          { type: 'tool_use', id: 'toolu_2', name: 'mcp__fixture__strict', input: { count: 1, extra: true } },
          { type: 'tool_use', id: 'toolu_3', name: 'mcp__fixture__fail', input: {} },
        ],
      },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'through the service' },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_2',
        content:
          '<tool_use_error>InputValidationError: mcp__fixture__strict failed due to the following issue:\n' +
          'An unexpected parameter `extra` was provided</tool_use_error>',
        is_error: true,
      },
      { type: 'tool_result', tool_use_id: 'toolu_3', content: 'disk full', is_error: true },
    ])
  })
})
