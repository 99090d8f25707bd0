// Pins the prompter of one /mcp call (docs/adr/0353): the first round notes the ask and denies it as with no approver; a retry's answer applies only to the ask of the same tool_use on the same input, named after the key and the MCP input request; a retry without a usable answer is not asked again.
import { describe, expect, it } from 'vitest'
import { inputDigest } from '../../src/audit/audit-log.js'
import { createMcpAskPrompter, type McpAskAnswer } from '../../src/mcp/endpoint/mcp-ask-prompter.js'

const prompt = {
  toolUseId: 'toolu_1',
  tool: 'Bash',
  input: { command: 'rm -rf build' },
  message: 'Bash needs approval',
}
const answer = (decision: McpAskAnswer['decision'], input: unknown = prompt.input): McpAskAnswer => ({
  decision,
  state: {
    v: 1,
    toolUseId: 'toolu_1',
    tool: 'Bash',
    argumentsSha256: inputDigest(prompt.input),
    inputSha256: inputDigest(input),
  },
})

describe('createMcpAskPrompter', () => {
  it('notes the ask of a first round and denies it as with no approver', async () => {
    const asks = createMcpAskPrompter({ canAsk: true, keyName: 'ops' })
    expect(await asks.prompter.request(prompt)).toEqual({ noApprover: true })
    expect(asks.asked).toEqual(prompt)
  })

  it('notes nothing when the client cannot answer', async () => {
    const asks = createMcpAskPrompter({ canAsk: false, answer: answer('allow', { command: 'ls' }) })
    expect(await asks.prompter.request(prompt)).toEqual({ noApprover: true })
    expect(asks.asked).toBeUndefined()
  })

  it("gives the user's allow or deny to the ask it was asked about, by the key via the input request", async () => {
    for (const decision of ['allow', 'deny'] as const) {
      const asks = createMcpAskPrompter({ canAsk: true, keyName: 'ops', answer: answer(decision) })
      expect(await asks.prompter.request(prompt)).toEqual({ decision, by: 'ops', via: 'mcp_input_request' })
      expect(asks.asked).toBeUndefined()
    }
  })

  it('asks again about another input or tool_use, and not after a round without an answer', async () => {
    const other = createMcpAskPrompter({ canAsk: true, answer: answer('allow', { command: 'rm -rf /' }) })
    expect(await other.prompter.request(prompt)).toEqual({ noApprover: true })
    expect(other.asked).toEqual(prompt)
    const elsewhere = createMcpAskPrompter({ canAsk: true, answer: answer('allow') })
    expect(await elsewhere.prompter.request({ ...prompt, toolUseId: 'toolu_2' })).toEqual({ noApprover: true })
    expect(elsewhere.asked?.toolUseId).toBe('toolu_2')
    const none = createMcpAskPrompter({ canAsk: true, answer: answer('none') })
    expect(await none.prompter.request(prompt)).toEqual({ noApprover: true })
    expect(none.asked).toBeUndefined()
  })
})
