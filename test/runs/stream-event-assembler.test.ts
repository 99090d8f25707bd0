// Pins the stream-event assembler: blocks rebuilt from input_json_delta, each released when the
// next block starts or the message says why it stopped, and max_tokens refusing the last block.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  type AssemblerAction,
  createStreamEventAssembler,
  MAX_TOKENS_REASON,
  type MessageStreamEvent,
} from '../../src/runs/stream/stream-event-assembler.js'

const fixture = (name: string): MessageStreamEvent[] =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'))

/** Feeds every event; returns the actions with the index of the event that produced them. */
function feed(events: MessageStreamEvent[]) {
  const assembler = createStreamEventAssembler()
  return events.flatMap((event, index) => assembler.push(event).map((action) => ({ at: index, action })))
}

describe('createStreamEventAssembler', () => {
  it('rebuilds each tool_use block and releases the first before the second one streams', () => {
    const events = fixture('messages-stream-two-tools.json')
    const actions = feed(events)
    expect(actions.map(({ action }) => action)).toEqual([
      { type: 'run', block: { type: 'tool_use', id: 'toolu_01A', name: 'Echo', input: { text: 'first' } } },
      { type: 'run', block: { type: 'tool_use', id: 'toolu_01B', name: 'Echo', input: { text: 'second' } } },
      { type: 'end' },
    ])
    const secondStart = events.findIndex(
      (event) => event.type === 'content_block_start' && event.content_block.id === 'toolu_01B',
    )
    expect(actions[0]!.at).toBe(secondStart)
    const messageDelta = events.findIndex((event) => event.type === 'message_delta')
    expect(actions[1]!.at).toBe(messageDelta)
    expect(actions[2]!.at).toBe(events.length - 1)
  })

  it('refuses the last block when the message stopped for max_tokens, even if it was closed', () => {
    const actions = feed(fixture('messages-stream-max-tokens.json')).map(({ action }) => action)
    expect(actions).toEqual([
      { type: 'run', block: { type: 'tool_use', id: 'toolu_02A', name: 'Echo', input: { text: 'whole' } } },
      { type: 'refuse', block: expect.objectContaining({ id: 'toolu_02B' }), reason: MAX_TOKENS_REASON },
      { type: 'end' },
    ])
  })

  it('refuses a block whose input is not JSON when the message goes on', () => {
    const assembler = createStreamEventAssembler()
    assembler.push({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'a', name: 'Echo', input: {} },
    })
    assembler.push({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"text' },
    })
    assembler.push({ type: 'content_block_stop', index: 0 })
    const actions = assembler.push({ type: 'message_delta', delta: { stop_reason: 'tool_use' } })
    expect(actions).toEqual([
      {
        type: 'refuse',
        block: { type: 'tool_use', id: 'a', name: 'Echo', input: {} },
        reason: expect.stringContaining('not valid JSON'),
      },
    ])
  })

  it('refuses a complete last block held back when max_tokens arrives', () => {
    const assembler = createStreamEventAssembler()
    const block = { type: 'tool_use', id: 'x', name: 'Echo', input: {} }
    assembler.push({ type: 'content_block_start', index: 0, content_block: block })
    assembler.push({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"text":"a"}' },
    })
    expect(assembler.push({ type: 'content_block_stop', index: 0 })).toEqual([])
    const actions = assembler.push({ type: 'message_delta', delta: { stop_reason: 'max_tokens' } })
    expect(actions).toEqual<AssemblerAction[]>([
      {
        type: 'refuse',
        block: { type: 'tool_use', id: 'x', name: 'Echo', input: { text: 'a' } },
        reason: MAX_TOKENS_REASON,
      },
      { type: 'end' },
    ])
    expect(assembler.ended).toBe(true)
    expect(assembler.push({ type: 'message_stop' })).toEqual([])
  })

  it('refuses a block still open when the input ends, and takes an empty input as {}', () => {
    const assembler = createStreamEventAssembler()
    assembler.push({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'a', name: 'Echo', input: {} },
    })
    assembler.push({ type: 'content_block_stop', index: 1 })
    assembler.push({
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'tool_use', id: 'b', name: 'Echo', input: {} },
    })
    assembler.push({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"te' } })
    const actions = assembler.end()
    expect(actions.map((action) => action.type)).toEqual(['refuse', 'end'])
    expect(actions[0]).toMatchObject({
      block: { id: 'b' },
      reason: expect.stringContaining('before this tool_use block was complete'),
    })
  })

  it('releases held blocks before a directly sent tool_use block, keeping block order', () => {
    const assembler = createStreamEventAssembler()
    assembler.push({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'a', name: 'Echo', input: {} },
    })
    assembler.push({ type: 'content_block_stop', index: 0 })
    const direct = { type: 'tool_use' as const, id: 'b', name: 'Echo', input: { text: 'b' } }
    expect(assembler.pushBlock(direct).map((action) => (action.type === 'end' ? 'end' : action.block.id))).toEqual([
      'a',
      'b',
    ])
  })

  it('ignores text blocks, pings and deltas of other kinds', () => {
    const assembler = createStreamEventAssembler()
    expect(assembler.push({ type: 'ping' })).toEqual([])
    expect(
      assembler.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ).toEqual([])
    expect(
      assembler.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }),
    ).toEqual([])
    expect(assembler.push({ type: 'content_block_stop', index: 0 })).toEqual([])
    expect(assembler.push({ type: 'message_stop' })).toEqual([{ type: 'end' }])
  })

  it('stops buffering an input past maxInputBytes and refuses the block as too large', () => {
    const assembler = createStreamEventAssembler({ maxInputBytes: 100 })
    assembler.push({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'big', name: 'Echo', input: {} },
    })
    assembler.push({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"text": "' },
    })
    for (let piece = 0; piece < 50; piece++) {
      assembler.push({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: 'x'.repeat(50) },
      })
    }
    // A client could stream deltas forever: what is held stays within the limit.
    expect(assembler.bufferedBytes).toBeLessThanOrEqual(100)
    assembler.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"}' } })
    assembler.push({ type: 'content_block_stop', index: 0 })
    const [action] = assembler.push({ type: 'message_stop' })
    expect(action).toMatchObject({ type: 'refuse', block: { id: 'big', input: {} } })
    expect(action?.type === 'refuse' && action.reason).toContain('TOOLEXEC_MAX_INPUT_BYTES')
    expect(assembler.bufferedBytes).toBe(0)
  })
})
