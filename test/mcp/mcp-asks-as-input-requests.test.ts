// Pins asks over /mcp as 2026-07-28 input requests (docs/mcp.md#asks-over-mcp, ADRs 0353–0356): a real SDK v2 client that declares form elicitation answers "Allow Bash: `…`?" through its own elicitation handler; allow runs the call, deny returns the approver's deny text, both recorded in the audit trail as answered by the key through an MCP input request; a tampered or misplaced requestState is refused; a client without the capability, a key that may not answer asks, and a 2025-era client are denied as before.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBuiltInTools } from '../../src/tools/built-in-tools.js'
import type { WireJson } from '../helpers/wire-json.js'
import { startServiceWithMcp, tempDir } from './mcp-test-helpers.js'

type Service = Awaited<ReturnType<typeof startServiceWithMcp>>
type TextContent = Array<{ type: string; text?: string }>
const textOf = (content: unknown) => (content as TextContent).map((block) => block.text ?? '').join('\n')

const KEYS = 'ops=acme:admin:ops-secret,robot=acme:runner:robot-secret'
const NO_APPROVER =
  'Permission to use Bash has been denied: this call needs approval and no approver is connected to answer.'
const ELICIT = { elicitation: { form: {} } }

type Elicited = { message: string; requestedSchema: WireJson }
/** How the client's user answers: an elicitation result, as the SDK's handler returns it. */
type Answer = (request: Elicited) => WireJson

describe('asks over /mcp as input requests', () => {
  let service: Service
  let scratch: string

  async function connect(options: { key?: string; answer?: Answer; capabilities?: WireJson; query?: string } = {}) {
    const { key = 'ops', answer, capabilities = answer ? ELICIT : {}, query = '' } = options
    const client = new Client(
      { name: 'asks-test', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: 'auto' } },
    )
    if (answer)
      client.setRequestHandler('elicitation/create', async (request) => answer(request.params as Elicited) as never)
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url.href}${query}`), {
      requestInit: { headers: { authorization: `Bearer ${key}-secret` } },
    })
    await client.connect(transport)
    return client
  }

  async function audit(toolUseId?: string): Promise<WireJson[]> {
    await service.app.audit.flush()
    const response = await fetch(`${service.baseUrl}/v1/audit?limit=100`, {
      headers: { authorization: 'Bearer ops-secret' },
    })
    const records = ((await response.json()) as WireJson).records as WireJson[]
    return records.filter((record) => toolUseId === undefined || record.tool_use_id === toolUseId)
  }

  beforeAll(async () => {
    scratch = await tempDir('asks')
    service = await startServiceWithMcp({
      baseTools: createBuiltInTools(),
      env: { TOOLEXEC_API_KEYS: KEYS },
      settings: { permissions: { allow: ['Read'], ask: ['Bash(touch:*)'] } },
    })
  })

  afterAll(async () => {
    await service?.close()
  })

  it('asks the client user, and an allow runs the call as answered by the key', async () => {
    const target = path.join(scratch, 'allowed.txt')
    const asked: Elicited[] = []
    const client = await connect({
      answer: (request) => {
        asked.push(request)
        return { action: 'accept', content: { decision: 'allow' } }
      },
    })
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      const result = await client.callTool({ name: 'Bash', arguments: { command: `touch ${target}` } })
      expect(result.isError).toBeFalsy()
      expect(existsSync(target)).toBe(true)
      expect(asked).toHaveLength(1)
      expect(asked[0]?.message).toContain(`Allow Bash: \`touch ${target}\`?`)
      expect(asked[0]?.message).toContain('Bash needs approval: the call matches the ask rule Bash(touch:*).')
      expect(asked[0]?.requestedSchema.required).toEqual(['decision'])
      const decisions = (await audit()).filter((record) => record.kind === 'decision' && record.tool === 'Bash')
      const answered = decisions.find((record) => record.source?.via === 'mcp_input_request')
      expect(answered).toMatchObject({ decision: 'allow', source: { type: 'answer', key_name: 'ops' } })
      // The round that asked and the retry that ran are one tool_use in the trail.
      const rounds = await audit(answered?.tool_use_id)
      expect(rounds.map((record) => [record.kind, record.decision ?? record.outcome])).toEqual(
        expect.arrayContaining([
          ['decision', 'deny'],
          ['decision', 'allow'],
          ['call', 'ok'],
        ]),
      )
    } finally {
      await client.close()
    }
  })

  it("returns the approver's deny text for a deny, and for a decline", async () => {
    for (const answer of [{ action: 'accept', content: { decision: 'deny' } }, { action: 'decline' }]) {
      const target = path.join(scratch, `denied-${answer.action}.txt`)
      const client = await connect({ answer: () => answer })
      try {
        const result = await client.callTool({ name: 'Bash', arguments: { command: `touch ${target}` } })
        expect(result.isError).toBe(true)
        expect(textOf(result.content)).toBe('Permission to use Bash has been denied by the approver.')
        expect(existsSync(target)).toBe(false)
      } finally {
        await client.close()
      }
    }
    const denied = (await audit()).filter(
      (record) => record.source?.via === 'mcp_input_request' && record.decision === 'deny',
    )
    expect(denied).toHaveLength(2)
    expect(denied[0]?.source).toMatchObject({ type: 'answer', key_name: 'ops' })
  })

  it('falls back to the denial of today when the user cancels (no answer)', async () => {
    const client = await connect({ answer: () => ({ action: 'cancel' }) })
    try {
      const result = await client.callTool({ name: 'Bash', arguments: { command: `touch ${scratch}/x` } })
      expect(textOf(result.content)).toBe(NO_APPROVER)
    } finally {
      await client.close()
    }
  })

  it('denies as before for a client without elicitation, a runner key, and a 2025-era client', async () => {
    let asked = 0
    const answer = () => {
      asked += 1
      return { action: 'accept', content: { decision: 'allow' } }
    }
    const clients = [
      await connect(),
      await connect({ key: 'robot', answer }),
      await connect({ answer, capabilities: { elicitation: { url: {} } } }),
    ]
    const legacy = new Client({ name: 'legacy', version: '1.0.0' }, { capabilities: ELICIT })
    legacy.setRequestHandler('elicitation/create', async () => answer() as never)
    await legacy.connect(
      new StreamableHTTPClientTransport(service.url, {
        requestInit: { headers: { authorization: 'Bearer ops-secret' } },
      }),
    )
    try {
      // The SDK's default 2025-era path: initialize, a session, no input_required vocabulary.
      expect(legacy.getProtocolEra()).toBe('legacy')
      for (const client of [...clients, legacy]) {
        const result = await client.callTool({ name: 'Bash', arguments: { command: `touch ${scratch}/y` } })
        expect(textOf(result.content)).toBe(NO_APPROVER)
      }
      expect(asked).toBe(0)
      expect(existsSync(path.join(scratch, 'y'))).toBe(false)
    } finally {
      await Promise.all([...clients, legacy].map((client) => client.close()))
    }
  })

  describe('the requestState', () => {
    /** One manual round: the input_required result of a call that asks. */
    async function firstRound(client: Client, command: string): Promise<WireJson> {
      return (await client.callTool({ name: 'Bash', arguments: { command } }, {
        allowInputRequired: true,
      } as never)) as WireJson
    }

    async function retry(client: Client, params: WireJson): Promise<unknown> {
      return client.callTool(params as never, { allowInputRequired: true } as never)
    }

    const allow = { toolexec_permission: { action: 'accept', content: { decision: 'allow' } } }

    it('is refused when tampered with, or echoed for another call, with a clear error', async () => {
      const client = await connect({ answer: () => ({ action: 'cancel' }) })
      try {
        const target = path.join(scratch, 'tampered.txt')
        const round = await firstRound(client, `touch ${target}`)
        expect(round.resultType).toBe('input_required')
        expect(typeof round.requestState).toBe('string')
        const state = round.requestState as string
        const [version, body, mac] = state.split('.')
        const forged = JSON.parse(Buffer.from(body as string, 'base64url').toString('utf8'))
        forged.p.inputSha256 = '0'.repeat(64)
        const tampered = `${version}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`
        await expect(
          retry(client, {
            name: 'Bash',
            arguments: { command: `touch ${target}` },
            inputResponses: allow,
            requestState: tampered,
          }),
        ).rejects.toThrow(/Invalid or expired requestState/)
        await expect(
          retry(client, {
            name: 'Bash',
            arguments: { command: `touch ${target}.other` },
            inputResponses: allow,
            requestState: state,
          }),
        ).rejects.toThrow(/answers an ask about another call: retry Bash with the arguments it was issued for/)
        expect(existsSync(target)).toBe(false)
        // The genuine state still works.
        const ran = (await retry(client, {
          name: 'Bash',
          arguments: { command: `touch ${target}` },
          inputResponses: allow,
          requestState: state,
        })) as WireJson
        expect(ran.isError).toBeFalsy()
        expect(existsSync(target)).toBe(true)
      } finally {
        await client.close()
      }
    })

    it('is refused in another session than the one it was issued in', async () => {
      const sessionOf = async () =>
        (
          (await (
            await fetch(`${service.baseUrl}/v1/sessions`, {
              method: 'POST',
              headers: { authorization: 'Bearer ops-secret', 'content-type': 'application/json' },
              body: '{}',
            })
          ).json()) as WireJson
        ).session_id as string
      const [one, two] = [await sessionOf(), await sessionOf()]
      const asking = await connect({ answer: () => ({ action: 'cancel' }), query: `?session_id=${one}` })
      const other = await connect({ answer: () => ({ action: 'cancel' }), query: `?session_id=${two}` })
      try {
        const target = path.join(scratch, 'elsewhere.txt')
        const round = await firstRound(asking, `touch ${target}`)
        const params = { name: 'Bash', arguments: { command: `touch ${target}` }, inputResponses: allow }
        await expect(retry(other, { ...params, requestState: round.requestState })).rejects.toThrow(
          /Invalid or expired requestState/,
        )
        expect(existsSync(target)).toBe(false)
      } finally {
        await Promise.all([asking.close(), other.close()])
      }
    })
  })
})
