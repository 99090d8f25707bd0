// Pins what toolexec's MCP client does with a 2026-07-28 server's input requests (ADR 0426): it
// cancels the elicitation (nobody is behind it), retries on a new request id echoing the server's
// requestState byte for byte, and returns the server's final answer; that an x-mcp-header
// parameter left null is sent as no header; that a 2020-12 schema is kept whole. A real SDK v2 server over HTTP.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type NodeIncomingMessageLike, toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, fromJsonSchema, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import { CLIENT_INFO, findTool, runTool } from './mcp-test-helpers.js'

/** Opaque to the client, with characters a re-encoding would change. */
const STATE = '{"round":1, "nonce":"ä/+="}'

const LOOKUP_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
  },
  required: ['region'],
}

/** The 2020-12 keywords a client must keep (SEP-1613, SEP-2106): `$defs` with an `$anchor`, composition, conditionals. */
const BOOK_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { city: { type: 'string' } } } },
  properties: {
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's conditional keyword, never awaited
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
}

type Round = { requestState: unknown; answer: unknown }
type Call = { id: unknown; tool: unknown; headers: { [name: string]: unknown } }

describe('MCP client input requests', () => {
  const rounds: Round[] = []
  const calls: Call[] = []
  let manager: McpManager
  let close = async () => {}

  beforeAll(async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 'asks-back', version: '1.0.0' })
      server.registerTool(
        'delete_branch',
        {
          description: 'Deletes a branch once someone confirms',
          inputSchema: z.object({ branch: z.string() }),
        },
        async (_args, ctx) => {
          const state = ctx.mcpReq.requestState()
          if (state === undefined)
            return inputRequired({
              inputRequests: {
                confirm: {
                  method: 'elicitation/create',
                  params: {
                    mode: 'form',
                    message: 'Really delete?',
                    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
                  },
                },
              },
              requestState: STATE,
            })
          const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm')
          rounds.push({ requestState: state, answer })
          return { content: [{ type: 'text', text: `kept: ${JSON.stringify(answer)}` }] }
        },
      )
      server.registerTool(
        'lookup',
        {
          description: 'Routes by region',
          inputSchema: fromJsonSchema(LOOKUP_SCHEMA),
        },
        async () => ({ content: [{ type: 'text', text: 'found' }] }),
      )
      server.registerTool(
        'book',
        { description: 'Books a visit', inputSchema: fromJsonSchema(BOOK_SCHEMA) },
        async () => ({ content: [{ type: 'text', text: 'booked' }] }),
      )
      return server
    })
    const http = createServer()
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
    const serve = toNodeHandler({ fetch: (request: Request) => handler.fetch(request) })
    http.on('request', (request, response) => {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        const parsed = body ? (JSON.parse(body) as { id?: unknown; method?: string; params?: { name?: unknown } }) : {}
        if (parsed.method === 'tools/call')
          calls.push({ id: parsed.id, tool: parsed.params?.name, headers: { ...request.headers } })
      })
      void serve(request as NodeIncomingMessageLike, response)
    })
    close = async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    }
    manager = createMcpManager({ servers: { asks: { type: 'http', url } }, clientInfo: CLIENT_INFO })
    await manager.ready()
  })

  afterAll(async () => {
    await manager?.close()
    await close()
  })

  it('cancels the elicitation and retries echoing the requestState on a new request id', async () => {
    expect(manager.states()[0]).toMatchObject({ status: 'connected', protocolVersion: '2026-07-28' })
    const tool = findTool(manager.tools(), 'mcp__asks__delete_branch')
    const result = await runTool(tool, { branch: 'main' })
    expect(JSON.stringify(result)).toContain('kept:')
    expect(rounds).toHaveLength(1)
    expect(rounds[0]?.requestState).toBe(STATE)
    expect(rounds[0]?.answer).toMatchObject({ action: 'cancel' })
    const ids = calls.filter((call) => call.tool === 'delete_branch').map((call) => call.id)
    expect(ids).toHaveLength(2)
    expect(ids[0]).not.toEqual(ids[1])
  })

  it('sends an x-mcp-header parameter as its header, and none for one left null', async () => {
    const tool = findTool(manager.tools(), 'mcp__asks__lookup')
    await runTool(tool, { region: 'eu-west', verbose: null })
    const call = calls.find((each) => each.tool === 'lookup')
    expect(call?.headers['mcp-param-region']).toBe('eu-west')
    expect(call?.headers).not.toHaveProperty('mcp-param-verbose')
  })

  it('keeps a 2020-12 input schema as the server listed it and validates with its keywords', () => {
    const tool = findTool(manager.tools(), 'mcp__asks__book')
    expect(tool.inputJSONSchema).toEqual(BOOK_SCHEMA)
    expect(tool.inputSchema.safeParse({ contactMethod: 'email', email: 'a@b.c' }).success).toBe(true)
    // `then` wants a phone; `additionalProperties: false` refuses the unknown key; `$ref` reaches `$defs`.
    expect(tool.inputSchema.safeParse({ contactMethod: 'phone', email: 'a@b.c' }).success).toBe(false)
    expect(tool.inputSchema.safeParse({ email: 'a@b.c', extra: 1 }).success).toBe(false)
    expect(tool.inputSchema.safeParse({ email: 'a@b.c', address: { city: 3 } }).success).toBe(false)
  })
})
