// Pins the `mcpServers` settings shape (Claude Code's, stdio type optional) and `${VAR}` expansion.
import { describe, expect, it } from 'vitest'
import { expandServerConfig } from '../../src/mcp/client/expand-env-vars.js'
import { McpServersSchema, parseMcpServers } from '../../src/mcp/client/mcp-settings-schema.js'

/** `${NAME}` as the settings file spells it. */
const ref = (name: string) => `\${${name}}`

describe('McpServersSchema', () => {
  it('accepts stdio servers with or without a type and HTTP servers, normalising the type', () => {
    const parsed = McpServersSchema.parse({
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'] },
      local: { type: 'stdio', command: 'node', args: ['server.js'], env: { DEBUG: '1' }, cwd: '/srv' },
      remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
    })
    expect(parsed.files).toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'],
    })
    expect(parsed.local?.type).toBe('stdio')
    expect(parsed.remote).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer x' },
    })
  })

  it('rejects unknown transports, missing commands and misspelt keys with readable messages', () => {
    const sse = McpServersSchema.safeParse({ old: { type: 'sse', url: 'https://x' } })
    expect(sse.error?.issues[0]?.message).toBe('MCP server `type` must be "stdio" (or left out) or "http"')
    const empty = McpServersSchema.safeParse({ bad: { command: '' } })
    expect(empty.error?.issues[0]).toMatchObject({ path: ['bad', 'command'], message: 'command must not be empty' })
    const typo = McpServersSchema.safeParse({ bad: { command: 'node', arg: ['x'] } })
    expect(typo.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['arg'] })
    expect(McpServersSchema.safeParse({ '': { command: 'node' } }).success).toBe(false)
  })
})

describe('expandServerConfig', () => {
  it('expands VAR references, with or without a default, in every string and lists unset variables', () => {
    const environment = { HOME_DIR: '/home/me', TOKEN: 't0k' }
    const stdio = expandServerConfig(
      {
        type: 'stdio',
        command: `${ref('HOME_DIR')}/bin/srv`,
        args: [`--port=${ref('PORT:-8080')}`, ref('NOPE')],
        env: { KEY: ref('TOKEN') },
      },
      environment,
    )
    expect(stdio.config).toMatchObject({ command: '/home/me/bin/srv', args: ['--port=8080', ''], env: { KEY: 't0k' } })
    expect(stdio.missing).toEqual(['NOPE'])
    const http = expandServerConfig(
      { type: 'http', url: `https://${ref('HOST:-mcp.local')}/mcp`, headers: { A: `Bearer ${ref('TOKEN')}` } },
      environment,
    )
    expect(http).toEqual({
      config: { type: 'http', url: 'https://mcp.local/mcp', headers: { A: 'Bearer t0k' } },
      missing: [],
    })
  })
})

describe('parseMcpServers', () => {
  it('names every bad field with its path', () => {
    expect(() => parseMcpServers({ files: { command: '', arg: [] }, web: { type: 'http' } })).toThrow(
      'Invalid MCP server settings:\n' +
        '  - mcpServers.files.command: command must not be empty\n' +
        '  - mcpServers.files.arg: Unrecognized key: "arg"\n' +
        '  - mcpServers.web.url: Invalid input: expected string, received undefined',
    )
    expect(parseMcpServers(undefined)).toEqual({})
  })
})
