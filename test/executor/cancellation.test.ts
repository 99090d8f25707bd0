// Pins how calls stop early (docs/design.md §6): Bash-error sibling cancel and its exact text, no cascade
// from other tools, cancel vs interrupt with `cancel`/`block` tools, and per-call/run timeouts.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRunExecutor } from '../../src/executor/run-executor.js'
import { sinkOf } from '../../src/executor/run-sink.js'
import {
  CANCEL_MESSAGE,
  callTimeoutMessage,
  REJECT_MESSAGE,
  runTimeoutMessage,
} from '../../src/messages/tool-error-messages.js'
import { block, contentOf, createGateTools, DEFAULT_OPTIONS, flush, makeSession, startRun } from './helpers.js'

const safe = { safe: true }

describe('sibling abort', () => {
  it('cancels the unfinished calls of the run when Bash errors, naming the command cut at 40 characters', async () => {
    const gates = createGateTools()
    const command = 'npm run build && npm run test -- --coverage --reporter=verbose'
    const blocks = [block('b1', 'Bash', { command, safe: true }), block('r2', 'Gate', safe), block('u3', 'Gate', {})]
    const run = await startRun(
      [gates.make('Gate'), gates.make('Bash', { inputSchema: bashSchema(), cancelsSiblingsOnError: true })],
      blocks,
    )
    await flush()
    gates.fail('b1', new Error('Exit code 1'))
    const outcome = await run.done()
    const expected = `<tool_use_error>Cancelled: parallel tool call Bash(${command.slice(0, 40)}…) errored</tool_use_error>`
    expect(contentOf(outcome, 'b1')).toBe('Exit code 1')
    expect(contentOf(outcome, 'r2')).toBe(expected)
    expect(contentOf(outcome, 'u3')).toBe(expected)
    expect(outcome.results.every((result) => result.is_error === true)).toBe(true)
  })

  it('names a short command whole', async () => {
    const gates = createGateTools()
    const blocks = [block('b1', 'Bash', { command: 'exit 3', safe: true }), block('r2', 'Gate', safe)]
    const run = await startRun(
      [gates.make('Gate'), gates.make('Bash', { inputSchema: bashSchema(), cancelsSiblingsOnError: true })],
      blocks,
    )
    await flush()
    gates.fail('b1', new Error('Exit code 3'))
    const outcome = await run.done()
    expect(contentOf(outcome, 'r2')).toBe(
      '<tool_use_error>Cancelled: parallel tool call Bash(exit 3) errored</tool_use_error>',
    )
  })

  it('does not cascade errors of other tools by default, but does with cancel_on_error "any"', async () => {
    for (const policy of ['bash', 'any'] as const) {
      const gates = createGateTools()
      const blocks = [block('e1', 'Gate', safe), block('ok2', 'Gate', safe)]
      const run = await startRun([gates.make('Gate')], blocks, { cancelOnError: policy })
      await flush()
      gates.fail('e1', new Error('no such file'))
      await flush()
      if (policy === 'bash') gates.release('ok2')
      const outcome = await run.done()
      expect(contentOf(outcome, 'e1')).toBe('no such file')
      expect(contentOf(outcome, 'ok2')).toBe(
        policy === 'bash' ? 'done ok2' : '<tool_use_error>Cancelled: parallel tool call Gate errored</tool_use_error>',
      )
    }
  })

  it('treats a Bash call that hits its own deadline as a Bash error that cancels its siblings', async () => {
    const gates = createGateTools()
    const blocks = [block('slow', 'Bash', { command: 'sleep 5', safe: true }), block('other', 'Gate', safe)]
    const run = await startRun(
      [
        gates.make('Gate'),
        gates.make('Bash', { inputSchema: bashSchema(), defaultTimeoutMs: 20, cancelsSiblingsOnError: true }),
      ],
      blocks,
    )
    const outcome = await run.done()
    expect(contentOf(outcome, 'slow')).toBe(callTimeoutMessage('Bash', 20))
    expect(contentOf(outcome, 'other')).toBe(
      '<tool_use_error>Cancelled: parallel tool call Bash(sleep 5) errored</tool_use_error>',
    )
  })

  it('never cascades with cancel_on_error "none"', async () => {
    const gates = createGateTools()
    const run = await startRun(
      [gates.make('Bash', { inputSchema: bashSchema(), cancelsSiblingsOnError: true })],
      [block('b1', 'Bash', { command: 'false', safe: true }), block('b2', 'Bash', { command: 'ls', safe: true })],
      { cancelOnError: 'none' },
    )
    await flush()
    gates.fail('b1', new Error('Exit code 1'))
    await flush()
    gates.release('b2')
    const outcome = await run.done()
    expect(contentOf(outcome, 'b2')).toBe('done b2')
  })
})

describe('cancel and interrupt', () => {
  it('cancel rejects every unfinished call and aborts running ones; later blocks find the run aborted', async () => {
    const gates = createGateTools()
    const run = await startRun(
      [gates.make('Gate')],
      [block('done1', 'Gate', safe), block('run2', 'Gate', safe), block('q3', 'Gate', {})],
    )
    await flush()
    gates.release('done1')
    await flush()
    run.executor.cancel()
    const outcome = await run.done()
    expect(outcome.status).toBe('cancelled')
    expect(contentOf(outcome, 'done1')).toBe('done done1')
    expect(contentOf(outcome, 'run2')).toBe(REJECT_MESSAGE)
    expect(contentOf(outcome, 'q3')).toBe(REJECT_MESSAGE)
  })

  it('interrupt aborts `cancel` tools, lets `block` tools finish with real results, and rejects queued calls', async () => {
    const gates = createGateTools()
    const cancellable = gates.make('Soft', { interruptBehavior: () => 'cancel' as const })
    const blocking = gates.make('Hard', { interruptBehavior: () => 'block' as const })
    const run = await startRun(
      [cancellable, blocking, gates.make('Gate')],
      [block('soft', 'Soft', safe), block('hard', 'Hard', safe), block('later', 'Gate', {})],
    )
    await flush()
    run.executor.cancel('interrupt')
    await flush()
    gates.release('hard', 'real result')
    const outcome = await run.done()
    expect(contentOf(outcome, 'soft')).toBe(REJECT_MESSAGE)
    expect(contentOf(outcome, 'hard')).toBe('real result')
    expect(contentOf(outcome, 'later')).toBe(REJECT_MESSAGE)
    expect(outcome.status).toBe('cancelled')
  })

  it('gives blocks that arrive after a cancel the "already aborted" text', async () => {
    const gates = createGateTools()
    const executor = createRunExecutor({
      runId: 'r',
      tools: [gates.make('Gate')],
      context: await makeSession(),
      parentMessage: { role: 'assistant', content: [] },
      options: DEFAULT_OPTIONS,
      sink: sinkOf(() => {}),
    })
    executor.cancel()
    executor.addToolUse(block('late', 'Gate', safe))
    executor.endInput()
    const outcome = await executor.finished
    expect(outcome.results).toEqual([
      { type: 'tool_result', tool_use_id: 'late', content: CANCEL_MESSAGE, is_error: true },
    ])
  })
})

describe('timeouts', () => {
  it('aborts a call past its deadline with a result that says it timed out and may have had partial effects', async () => {
    const gates = createGateTools()
    const run = await startRun([gates.make('Gate')], [block('slow', 'Gate', {}), block('next', 'Gate', {})], {
      callTimeoutMs: 20,
    })
    const outcome = await run.done()
    expect(contentOf(outcome, 'slow')).toBe(callTimeoutMessage('Gate', 20))
    expect(String(contentOf(outcome, 'slow'))).toContain('partial effects')
    expect(contentOf(outcome, 'next')).toBe(callTimeoutMessage('Gate', 20))
  })

  it('aborts everything still going at the run deadline', async () => {
    const gates = createGateTools()
    const run = await startRun([gates.make('Gate')], [block('a', 'Gate', safe), block('b', 'Gate', {})], {
      runTimeoutMs: 20,
    })
    const outcome = await run.done()
    expect(contentOf(outcome, 'a')).toBe(runTimeoutMessage('Gate', 20))
    expect(contentOf(outcome, 'b')).toBe(runTimeoutMessage('Gate', 20))
  })
})

/** A Bash stand-in for scheduling tests: the real Bash tool has its own tests with real processes. */
function bashSchema() {
  return z.strictObject({ command: z.string().optional(), safe: z.boolean().optional(), output: z.string().optional() })
}
