// Pins a call whose tool validates, with no hooks (docs/adr/0515): validation, then the gate, then
// the call, in that order; a rewritten input validated again; a cancel during validation, a
// refusal and a validator that throws synchronously each give their usual text.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { HookRunner } from '../../src/executor/hook-runner.js'
import type { PermissionGate } from '../../src/executor/permission-gate.js'
import { REJECT_MESSAGE } from '../../src/messages/tool-error-messages.js'
import { buildTool } from '../../src/tool/build-tool.js'
import type { AnyTool, ValidationResult } from '../../src/tool/tool.js'
import { block, startRun } from './helpers.js'

function probe(steps: string[], validate: (input: { value: string }) => Promise<ValidationResult>): AnyTool {
  return buildTool({
    name: 'Probe',
    ruleFamily: 'none',
    inputSchema: z.strictObject({ value: z.string() }),
    maxResultSizeChars: 30_000,
    description: async () => 'probe',
    prompt: async () => 'probe',
    validateInput: (input: { value: string }) => {
      steps.push(`validate ${input.value}`)
      return validate(input)
    },
    async call(input: { value: string }) {
      steps.push(`call ${input.value}`)
      return { data: `ran ${input.value}` }
    },
  }) as AnyTool
}

const recordingGate = (steps: string[], answer: PermissionGate['decide'] = async () => ({ behavior: 'allow' })) =>
  ({
    decide: (request) => {
      steps.push(`decide ${(request.input as { value: string }).value}`)
      return answer(request)
    },
  }) satisfies PermissionGate

describe('a validated call with no hooks', () => {
  it('validates, asks the gate, then calls, each once', async () => {
    const steps: string[] = []
    const tool = probe(steps, async () => ({ result: true }))
    const run = await startRun(
      [tool],
      [block('t1', 'Probe', { value: 'a' })],
      {},
      { permissions: recordingGate(steps) },
    )
    const outcome = await run.done()
    expect(steps).toEqual(['validate a', 'decide a', 'call a'])
    expect(outcome.results[0]).toMatchObject({ content: 'ran a' })
    expect(outcome.results[0]?.is_error).toBeUndefined()
  })

  it('validates an input the gate rewrote before calling with it', async () => {
    const steps: string[] = []
    const tool = probe(steps, async (input) =>
      input.value === 'bad' ? { result: false, message: 'bad value' } : { result: true },
    )
    const rewriting = recordingGate(steps, async () => ({ behavior: 'allow', updatedInput: { value: 'b' } }))
    const run = await startRun([tool], [block('t1', 'Probe', { value: 'a' })], {}, { permissions: rewriting })
    const outcome = await run.done()
    expect(steps).toEqual(['validate a', 'decide a', 'validate b', 'call b'])
    expect(outcome.results[0]).toMatchObject({ content: 'ran b' })

    const refusing = recordingGate([], async () => ({ behavior: 'allow', updatedInput: { value: 'bad' } }))
    const refused = await startRun(
      [
        probe([], async (input) =>
          input.value === 'bad' ? { result: false, message: 'bad value' } : { result: true },
        ),
      ],
      [block('t2', 'Probe', { value: 'a' })],
      {},
      { permissions: refusing },
    )
    expect((await refused.done()).results[0]).toMatchObject({
      content: '<tool_use_error>bad value</tool_use_error>',
      is_error: true,
    })
  })

  it('an allow that hands back the input it was shown is no rewrite: validated once (docs/adr/0584)', async () => {
    const steps: string[] = []
    const tool = probe(steps, async () => ({ result: true }))
    // What the default checkPermissions and Claude Code's own tools answer: the same object back.
    const handingBack = recordingGate(steps, async (request) => ({ behavior: 'allow', updatedInput: request.input }))
    const run = await startRun([tool], [block('t1', 'Probe', { value: 'a' })], {}, { permissions: handingBack })
    expect((await run.done()).results[0]).toMatchObject({ content: 'ran a' })
    expect(steps).toEqual(['validate a', 'decide a', 'call a'])

    // An equal input in a new object is still a rewrite, validated again.
    const copying: string[] = []
    const copied = await startRun(
      [probe(copying, async () => ({ result: true }))],
      [block('t2', 'Probe', { value: 'a' })],
      {},
      {
        permissions: recordingGate(copying, async (request) => ({
          behavior: 'allow',
          updatedInput: { ...request.input },
        })),
      },
    )
    expect((await copied.done()).results[0]).toMatchObject({ content: 'ran a' })
    expect(copying).toEqual(['validate a', 'decide a', 'validate a', 'call a'])

    // The same on the staged path, taken when hooks are configured.
    const hooked: string[] = []
    const hooks: HookRunner = {
      preToolUse: async () => ({}),
      postToolUse: async () => ({}),
      postToolUseFailure: async () => ({}),
    }
    const staged = await startRun(
      [probe(hooked, async () => ({ result: true }))],
      [block('t3', 'Probe', { value: 'a' })],
      {},
      {
        hooks,
        permissions: recordingGate(hooked, async (request) => ({ behavior: 'allow', updatedInput: request.input })),
      },
    )
    expect((await staged.done()).results[0]).toMatchObject({ content: 'ran a' })
    expect(hooked).toEqual(['validate a', 'decide a', 'call a'])
  })

  it('a run cancelled while validation waits never calls the tool, and gets the rejection text', async () => {
    const steps: string[] = []
    let pass: (result: ValidationResult) => void = () => undefined
    const tool = probe(steps, () => new Promise<ValidationResult>((resolve) => (pass = resolve)))
    const run = await startRun(
      [tool],
      [block('t1', 'Probe', { value: 'a' })],
      {},
      { permissions: recordingGate(steps) },
    )
    await new Promise((resolve) => setImmediate(resolve))
    run.executor.cancel()
    pass({ result: true })
    const outcome = await run.done()
    // As the staged path did: the gate is still asked once validation ends, the call is not made.
    expect(steps).toEqual(['validate a', 'decide a'])
    expect(outcome.results[0]).toMatchObject({ content: REJECT_MESSAGE, is_error: true })
  })

  it('a validator that throws before returning a promise is the pipeline fault text', async () => {
    const tool = probe([], () => {
      throw new Error('validator crashed at once')
    })
    const run = await startRun([tool], [block('t1', 'Probe', { value: 'a' })])
    expect((await run.done()).results[0]).toMatchObject({
      content: '<tool_use_error>Error calling tool (Probe): validator crashed at once</tool_use_error>',
      is_error: true,
    })
  })
  it('a gate that throws at once after validation is the call fault text, and the run goes on', async () => {
    const steps: string[] = []
    const tool = probe(steps, async () => ({ result: true }))
    const throwing = {
      decide: (request) => {
        if ((request.input as { value: string }).value === 'a') throw new Error('gate crashed at once')
        return { behavior: 'allow' }
      },
    } satisfies PermissionGate
    const run = await startRun(
      [tool],
      [block('t1', 'Probe', { value: 'a' }), block('t2', 'Probe', { value: 'b' })],
      {},
      { permissions: throwing },
    )
    const outcome = await run.done()
    expect(outcome.results[0]).toMatchObject({
      content: '<tool_use_error>Error calling tool (Probe): gate crashed at once</tool_use_error>',
      is_error: true,
    })
    expect(outcome.results[1]).toMatchObject({ content: 'ran b' })
    expect(steps).toEqual(['validate a', 'validate b', 'call b'])
  })
})
