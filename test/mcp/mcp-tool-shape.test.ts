// Pins how one MCP tool looks to the engine: Ajv validation wording, content mapping, errors, deferral, skipped names.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SILENT_LOGGER } from '../../src/logging/logger.js'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import { parseToolInput } from '../../src/tool/parse-tool-input.js'
import { CLIENT_INFO, FIXTURE_SERVER, findTool, runTool, tempDir } from './mcp-test-helpers.js'

const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='

describe('MCP tools as the engine sees them', () => {
  let manager: McpManager
  const warnings: object[] = []

  beforeAll(async () => {
    const log = path.join(await tempDir('shape'), 'events.log')
    manager = createMcpManager({
      servers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: log } } },
      clientInfo: CLIENT_INFO,
      logger: { ...SILENT_LOGGER, warn: (object) => warnings.push(object) },
    })
    await manager.ready()
  })

  afterAll(() => manager.close())

  it('words Ajv failures the way the engine words zod failures', () => {
    const strict = findTool(manager.tools(), 'mcp__fixture__strict')
    const parsed = parseToolInput(strict, { count: 'three', mode: 'medium', items: [{}], colour: 'red' })
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.message.split('\n')).toEqual([
      '<tool_use_error>InputValidationError: mcp__fixture__strict failed due to the following issues:',
      'An unexpected parameter `colour` was provided',
      'The parameter `count` type is expected as `integer` but provided as `string`',
      'The parameter `mode` is invalid: must be one of: "fast", "slow"',
      'The required parameter `items[0].id` is missing</tool_use_error>',
    ])
    expect(parseToolInput(strict, {}).ok).toBe(false)
    expect(parseToolInput(strict, { count: 11 })).toMatchObject({
      ok: false,
      message: expect.stringContaining('must be <= 10'),
    })
  })

  it('passes a valid input through unchanged', () => {
    const strict = findTool(manager.tools(), 'mcp__fixture__strict')
    const input = { count: 2, mode: 'fast', items: [{ id: 'a' }] }
    expect(parseToolInput(strict, input)).toEqual({ ok: true, data: input })
  })

  it('maps every content kind to blocks the Messages API accepts', async () => {
    const result = await runTool(findTool(manager.tools(), 'mcp__fixture__rich'), {})
    expect(result.isError).toBeUndefined()
    expect(result.content).toEqual([
      { type: 'text', text: 'intro' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG } },
      { type: 'text', text: '[Image (image/svg+xml), 11 bytes: not shown, unsupported image type]' },
      { type: 'text', text: '[Audio (audio/wav), 3 bytes: not shown, audio is not supported]' },
      {
        type: 'text',
        text: '[Resource link: report]\nURI: file:///data/report.csv\nMIME type: text/csv\nDescription: Monthly report',
      },
      { type: 'text', text: '[Resource: memo://1 (text/plain)]\nmemo body' },
      { type: 'text', text: '[Resource: memo://2 (image/png)]' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG } },
      { type: 'text', text: '{"total":3}' },
    ])
  })

  it('reports isError results as error results', async () => {
    const fail = findTool(manager.tools(), 'mcp__fixture__fail')
    expect(await runTool(fail, {})).toEqual({ content: 'disk full', isError: true })
    expect(fail.isDestructive?.({})).toBe(true)
    expect(fail.isConcurrencySafe({})).toBe(false)
  })

  it('defers every tool behind ToolSearch unless the server asks for anthropic/alwaysLoad', () => {
    const always = findTool(manager.tools(), 'mcp__fixture__always')
    expect(always.shouldDefer).toBe(false)
    expect(always.alwaysLoad).toBe(true)
    const echo = findTool(manager.tools(), 'mcp__fixture__echo')
    expect(echo.shouldDefer).toBe(true)
    expect(echo.alwaysLoad).toBeUndefined()
    expect(echo.interruptBehavior?.()).toBe('cancel')
    expect(echo.userFacingName()).toBe('fixture - echo (MCP)')
  })

  it('leaves out a tool whose name would break the API, and says so', () => {
    expect(manager.tools().some((tool) => tool.name.includes('long-'))).toBe(false)
    expect(warnings).toContainEqual(
      expect.objectContaining({ server: 'fixture', reason: expect.stringContaining('64') }),
    )
  })
})
