// Pins tool naming, description truncation and the Ajv-backed input schema on its own (no server).
import { describe, expect, it } from 'vitest'
import { createMcpTool, MAX_MCP_DESCRIPTION_LENGTH, type McpToolCaller } from '../../src/mcp/client/create-mcp-tool.js'
import { createJsonSchemaInput } from '../../src/mcp/client/json-schema-input.js'
import { mcpToolName } from '../../src/mcp/client/mcp-tool-name.js'

const caller: McpToolCaller = { callTool: async () => ({ content: [] }) }

describe('mcpToolName', () => {
  it('joins server and tool with double underscores and replaces characters the API refuses', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue')
    expect(mcpToolName('my server.v2', 'files/read:all')).toBe('mcp__my_server_v2__files_read_all')
    expect(mcpToolName('ünïcode', 'get-thing')).toBe('mcp___n_code__get-thing')
  })
})

describe('createMcpTool', () => {
  it('cuts long descriptions at 2,048 characters', async () => {
    const tool = createMcpTool({
      serverName: 's',
      definition: { name: 't', description: 'x'.repeat(5000), inputSchema: { type: 'object' } },
      caller,
    })
    const description = await tool.prompt({} as never)
    expect(description).toHaveLength(MAX_MCP_DESCRIPTION_LENGTH)
    expect(description.endsWith('… [truncated]')).toBe(true)
  })

  it('treats tools without annotations as neither read-only nor concurrency-safe', () => {
    const tool = createMcpTool({ serverName: 's', definition: { name: 't', inputSchema: { type: 'object' } }, caller })
    expect(tool.isReadOnly({})).toBe(false)
    expect(tool.isConcurrencySafe({})).toBe(false)
    expect(tool.isDestructive?.({})).toBe(false)
  })
})

describe('createJsonSchemaInput', () => {
  it('rejects non-objects at the root', () => {
    const { schema } = createJsonSchemaInput({ type: 'object' })
    expect(schema.safeParse([1]).error?.issues[0]).toMatchObject({ code: 'invalid_type', expected: 'object' })
  })

  it('falls back to the default dialect for an unknown $schema, and to objects-only for an uncompilable schema', () => {
    const draft4 = createJsonSchemaInput({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      required: ['a'],
    })
    expect(draft4.compileError).toBeUndefined()
    expect(draft4.schema.safeParse({}).success).toBe(false)
    const broken = createJsonSchemaInput({ type: 'object', properties: { a: { $ref: '#/nowhere' } } })
    expect(broken.compileError).toMatch(/nowhere/)
    expect(broken.schema.safeParse({ a: 1 }).success).toBe(true)
  })

  it('lets two tools share a $id', () => {
    const first = createJsonSchemaInput({ $id: 'https://example.com/same.json', type: 'object', required: ['a'] })
    const second = createJsonSchemaInput({ $id: 'https://example.com/same.json', type: 'object', required: ['b'] })
    expect(first.compileError ?? second.compileError).toBeUndefined()
    expect(second.schema.safeParse({ a: 1 }).success).toBe(false)
  })
})
