// Pins that /mcp serves the Messages API's client tools when the operator's toolsets include
// them: listed with a JSON Schema (MCP clients need one), and a call keeps the session's shell.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServiceWithMcp } from './mcp-test-helpers.js'

type TextContent = Array<{ type: string; text?: string }>
const textOf = (content: unknown) => (content as TextContent).map((block) => block.text ?? '').join('\n')

describe('/mcp with the anthropic_client toolset', () => {
  let service: Awaited<ReturnType<typeof startServiceWithMcp>>
  let client: Client

  beforeAll(async () => {
    service = await startServiceWithMcp({
      settings: {
        toolsets: ['anthropic_client'],
        clientTools: { textEditor: 'text_editor_20250124' },
        permissions: { allow: ['bash'] },
      },
    })
    client = new Client({ name: 'client-tools-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(service.url))
  })
  afterAll(async () => {
    await client?.close()
    await service?.close()
  })

  it("lists bash, the operator's text editor and memory with schemas, and not Claude Code tools", async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['bash', 'memory', 'str_replace_editor'])
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', properties: { command: expect.any(Object) } })
  })

  it('keeps the shell between calls of one MCP session', async () => {
    await client.callTool({ name: 'bash', arguments: { command: 'export KEPT=yes' } })
    const result = await client.callTool({ name: 'bash', arguments: { command: 'echo $KEPT' } })
    expect(textOf(result.content)).toBe('yes')
  })
})
