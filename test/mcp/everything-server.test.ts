// Pins the MCP client against the real @modelcontextprotocol/server-everything over stdio: naming, calls, progress, annotations, images.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import type { ToolProgressData } from '../../src/tool/tool.js'
import { CLIENT_INFO, EVERYTHING_SERVER, findTool, runTool } from './mcp-test-helpers.js'

// A server name with characters the API refuses, to pin the normalisation.
const SERVER = 'every thing.v1'
const PREFIX = 'mcp__every_thing_v1__'

describe('server-everything over stdio', () => {
  let manager: McpManager

  beforeAll(async () => {
    manager = createMcpManager({
      servers: { [SERVER]: { type: 'stdio', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } },
      clientInfo: CLIENT_INFO,
    })
    await manager.ready()
  })

  afterAll(() => manager.close())

  it('connects and reports its state', () => {
    const [state] = manager.states()
    expect(state).toMatchObject({ name: SERVER, type: 'stdio', status: 'connected' })
    expect(state?.toolCount).toBe(manager.tools().length)
    expect(state?.serverInfo?.name).toBeTruthy()
  })

  it('names every tool mcp__<server>__<tool> with API-safe characters and keeps the server schema verbatim', () => {
    const names = manager.tools().map((tool) => tool.name)
    expect(names).toContain(`${PREFIX}echo`)
    expect(names).toContain(`${PREFIX}get-tiny-image`)
    for (const name of names) expect(name).toMatch(/^mcp__every_thing_v1__[a-zA-Z0-9_-]+$/)
    const echo = findTool(manager.tools(), `${PREFIX}echo`)
    expect(echo.inputJSONSchema).toMatchObject({ type: 'object', required: ['message'] })
    expect(echo.shouldDefer).toBe(true)
    expect(echo.maxResultSizeChars).toBe(100_000)
  })

  it('echoes', async () => {
    const result = await runTool(findTool(manager.tools(), `${PREFIX}echo`), { message: 'hello there' })
    expect(result).toEqual({ content: 'Echo: hello there' })
  })

  it('relays progress of the long-running operation to onProgress', async () => {
    const progress: ToolProgressData[] = []
    const tool = findTool(manager.tools(), `${PREFIX}trigger-long-running-operation`)
    const result = await runTool(tool, { duration: 0.2, steps: 2 }, { onProgress: (data) => progress.push(data) })
    // The SDK handles notifications a microtask late, so the last step may lose the race with the
    // response; every step before it arrives well ahead.
    expect(progress[0]).toEqual({ progress: 1, total: 2 })
    expect(result.content).toContain('Long running operation completed')
  })

  it('derives concurrency safety and read-only from annotations.readOnlyHint', () => {
    const echo = findTool(manager.tools(), `${PREFIX}echo`)
    const toggle = findTool(manager.tools(), `${PREFIX}toggle-simulated-logging`)
    expect(echo.isConcurrencySafe({})).toBe(true)
    expect(echo.isReadOnly({})).toBe(true)
    expect(echo.isDestructive?.({})).toBe(false)
    expect(toggle.isConcurrencySafe({})).toBe(false)
    expect(toggle.isReadOnly({})).toBe(false)
  })

  it('maps an image to an image block with base64 data and media_type', async () => {
    const result = await runTool(findTool(manager.tools(), `${PREFIX}get-tiny-image`), {})
    expect(Array.isArray(result.content)).toBe(true)
    const blocks = result.content as Array<{
      type: string
      source?: { type: string; media_type: string; data: string }
    }>
    const image = blocks.find((block) => block.type === 'image')
    expect(image?.source).toMatchObject({ type: 'base64', media_type: 'image/png' })
    expect(image?.source?.data).toMatch(/^iVBORw0KGgo/)
    expect(blocks[0]).toEqual({ type: 'text', text: "Here's the image you requested:" })
  })

  it('turns resource links into text a model can follow', async () => {
    const result = await runTool(findTool(manager.tools(), `${PREFIX}get-resource-links`), { count: 2 })
    const texts = (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '')
    expect(texts.some((text) => text.startsWith('[Resource link: ') && text.includes('URI: demo://resource/'))).toBe(
      true,
    )
  })

  it('keeps structuredContent without duplicating it when the text already carries it', async () => {
    const tool = findTool(manager.tools(), `${PREFIX}get-structured-content`)
    const result = await runTool(tool, { location: 'Chicago' })
    const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content)
    expect(JSON.parse(text)).toMatchObject({ temperature: expect.any(Number) })
  })
})
