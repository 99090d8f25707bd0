// Pins the ask round trip: every way an approver can answer (or not) and the text each one yields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPermissionGate } from '../../src/permissions/create-permission-gate.js'
import type {
  PermissionAnswer,
  PermissionPrompt,
  PermissionPrompter,
} from '../../src/permissions/permission-prompter.js'
import { buildTool, deferToPermissionRules } from '../../src/tool/build-tool.js'
import { createPermissionContext, type ToolPermissionContext } from '../../src/tool/permission-context.js'
import type { TestWorkspace } from '../helpers/tool-context.js'
import { bashTool, createWorkspace, makeContext } from './permission-fixtures.js'

let workspace: TestWorkspace
beforeAll(async () => {
  workspace = await createWorkspace()
})
afterAll(() => workspace.cleanup())

/** Records each prompt and answers with what the test queued. */
function fakePrompter(
  answer: PermissionAnswer | Promise<PermissionAnswer>,
): PermissionPrompter & { prompts: PermissionPrompt[] } {
  const prompts: PermissionPrompt[] = []
  return {
    prompts,
    request: async (prompt) => {
      prompts.push(prompt)
      return answer
    },
  }
}

const operatorDenyRm = createPermissionContext({ alwaysDenyRules: { operatorSettings: ['Bash(rm:*)'] } })

async function decide(
  prompter: PermissionPrompter | undefined,
  command: string,
  context: ToolPermissionContext = operatorDenyRm,
) {
  const gate = createPermissionGate({ prompter, timeoutMs: 1500 })
  return gate.decide({ tool: bashTool, input: { command }, context: makeContext(workspace, context), hookOutcome: {} })
}

describe('createPermissionGate', () => {
  it('does not ask when the rules decide', async () => {
    const prompter = fakePrompter({ decision: 'allow' })
    expect(await decide(prompter, 'ls')).toMatchObject({ behavior: 'allow' })
    expect(await decide(prompter, 'rm x')).toMatchObject({
      behavior: 'deny',
      message: 'Permission to use Bash has been denied.',
    })
    expect(prompter.prompts).toEqual([])
  })

  it('asks with the tool use id, name, input and message, and allows on allow', async () => {
    const prompter = fakePrompter({ decision: 'allow' })
    expect(await decide(prompter, 'make build')).toEqual({
      behavior: 'allow',
      decisionReason: { type: 'user', ended: 'answer' },
    })
    expect(prompter.prompts).toEqual([
      {
        toolUseId: 'toolu_1',
        tool: 'Bash',
        input: { command: 'make build' },
        message: 'Bash needs approval: no rule allows this call.',
        hints: { read_only: false, destructive: false, network: true, asked_by: { type: 'default' } },
        alwaysRule: 'Bash(make build)',
      },
    ])
  })

  it('allows with edited input after parsing it', async () => {
    const prompter = fakePrompter({ decision: 'allow', updatedInput: { command: 'make test' } })
    expect(await decide(prompter, 'make build')).toMatchObject({
      behavior: 'allow',
      updatedInput: { command: 'make test' },
    })
  })

  it('denies edited input that a deny rule catches', async () => {
    const prompter = fakePrompter({ decision: 'allow', updatedInput: { command: 'make && rm -rf x' } })
    expect(await decide(prompter, 'make build')).toMatchObject({
      behavior: 'deny',
      message: 'Permission to use Bash has been denied.',
    })
  })

  it('denies edited input the schema rejects, in the model-facing validation format', async () => {
    const prompter = fakePrompter({ decision: 'allow', updatedInput: { command: 'ls', extra: true } })
    const decision = await decide(prompter, 'make build')
    expect(decision).toMatchObject({ behavior: 'deny' })
    expect(decision.behavior === 'deny' && decision.message).toBe(
      '<tool_use_error>InputValidationError: Bash failed due to the following issue:\nAn unexpected parameter `extra` was provided</tool_use_error>',
    )
  })

  it("denies edited input the tool's validateInput rejects", async () => {
    const picky = buildTool({
      name: 'Picky',
      ruleFamily: 'none',
      inputSchema: z.strictObject({ n: z.number() }),
      maxResultSizeChars: 100,
      checkPermissions: deferToPermissionRules,
      description: async () => '',
      prompt: async () => '',
      call: async () => ({ data: '' }),
      validateInput: async (input: { n: number }) =>
        input.n > 0 ? { result: true } : { result: false, message: 'n must be positive' },
    })
    const gate = createPermissionGate({
      prompter: fakePrompter({ decision: 'allow', updatedInput: { n: -1 } }),
      timeoutMs: 10,
    })
    const decision = await gate.decide({
      tool: picky,
      input: { n: 1 },
      context: makeContext(workspace),
      hookOutcome: {},
    })
    expect(decision).toEqual({
      behavior: 'deny',
      message: '<tool_use_error>n must be positive</tool_use_error>',
      decisionReason: { type: 'user', ended: 'answer', edited: true },
    })
  })

  it("uses the approver's deny message as the result text", async () => {
    const decision = await decide(fakePrompter({ decision: 'deny', message: 'Use make test instead.' }), 'make build')
    expect(decision).toMatchObject({ behavior: 'deny', message: 'Use make test instead.' })
  })

  it('words a deny without a message', async () => {
    const decision = await decide(fakePrompter({ decision: 'deny' }), 'make build')
    expect(decision).toMatchObject({
      behavior: 'deny',
      message: 'Permission to use Bash has been denied by the approver.',
    })
  })

  it('says nobody answered within the timeout', async () => {
    const decision = await decide(fakePrompter({ timedOut: true }), 'make build')
    expect(decision).toMatchObject({
      behavior: 'deny',
      message: 'Permission to use Bash has been denied: this call needs approval and nobody answered within 1500 ms.',
    })
  })

  it('says no approver is connected, with or without a prompter', async () => {
    const expected = {
      behavior: 'deny',
      message:
        'Permission to use Bash has been denied: this call needs approval and no approver is connected to answer.',
    }
    expect(await decide(fakePrompter({ noApprover: true }), 'make build')).toMatchObject(expected)
    expect(await decide(undefined, 'make build')).toMatchObject(expected)
  })

  it('denies when the prompter fails', async () => {
    const failing: PermissionPrompter = { request: async () => Promise.reject(new Error('store down')) }
    expect(await decide(failing, 'make build')).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('store down'),
    })
  })

  it('stops waiting when the run is cancelled', async () => {
    const controller = new AbortController()
    const never = new Promise<PermissionAnswer>(() => {})
    const gate = createPermissionGate({ prompter: fakePrompter(never), timeoutMs: 60_000 })
    const pending = gate.decide({
      tool: bashTool,
      input: { command: 'make build' },
      context: makeContext(workspace, createPermissionContext(), controller.signal),
      hookOutcome: {},
    })
    controller.abort()
    expect(await pending).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining("doesn't want to proceed"),
    })
  })

  it('never asks in dontAsk mode', async () => {
    const prompter = fakePrompter({ decision: 'allow' })
    const decision = await decide(prompter, 'make build', createPermissionContext({ mode: 'dontAsk' }))
    expect(decision.behavior).toBe('deny')
    expect(prompter.prompts).toEqual([])
  })

  it('checks its options', () => {
    expect(() => createPermissionGate({ timeoutMs: Number.NaN })).toThrow(/timeoutMs/)
  })
})
