// Pins how a request becomes blocks: picking tool_use blocks from a message, refusing the last one
// after max_tokens, and the checks that turn into 4xx (none, duplicates, counts, sizes); plus the
// request fingerprint Idempotency-Key compares; and that the three entrances (POST body, run.start
// frame, MCP call) build their run request in one place, the same way.
import { describe, expect, it } from 'vitest'
import {
  checkBlocks,
  permissionTimeoutOf,
  prepareRunInput,
  requestFromBody,
  requestFromMcpCall,
  requestFromStreamStart,
  runFingerprint,
  runOptionsOf,
} from '../../src/runs/run-request.js'
import { MAX_TOKENS_REASON } from '../../src/runs/stream/stream-event-assembler.js'

const limits = { maxBlocksPerRun: 3, maxInputBytes: 100 }
const block = (id: string, input: unknown = {}) => ({ type: 'tool_use' as const, id, name: 'Echo', input })

describe('prepareRunInput', () => {
  it('synthesises the parent message for bare blocks', () => {
    const prepared = prepareRunInput({ tool_uses: [block('a')] }, limits)
    expect(prepared.blocks).toEqual([block('a')])
    expect(prepared.parentMessage).toEqual({ role: 'assistant', content: [block('a')], stop_reason: 'tool_use' })
    expect(prepared.refusals.size).toBe(0)
  })

  it('picks tool_use blocks from a message and refuses the last after max_tokens', () => {
    const content = [{ type: 'thinking', thinking: '…' }, block('a'), { type: 'text', text: 'and' }, block('b')]
    const prepared = prepareRunInput({ message: { role: 'assistant', content, stop_reason: 'max_tokens' } }, limits)
    expect(prepared.blocks.map((picked) => picked.id)).toEqual(['a', 'b'])
    expect([...prepared.refusals]).toEqual([['b', MAX_TOKENS_REASON]])
    expect(prepared.parentMessage.content).toBe(content)
  })

  it.each([
    [{}, 'invalid_request'],
    [{ tool_uses: [] }, 'no_tool_uses'],
    [{ tool_uses: [block('a'), block('a')] }, 'duplicate_tool_use_id'],
    [{ tool_uses: [block('a'), block('b'), block('c'), block('d')] }, 'too_many_blocks'],
    [{ tool_uses: [block('a', { text: 'x'.repeat(200) })] }, 'input_too_large'],
  ])('refuses %j with %s', (input, code) => {
    expect(() => prepareRunInput(input, limits)).toThrow(expect.objectContaining({ code }))
  })

  it('checks streamed blocks against the ids seen so far', () => {
    const seen = new Set<string>()
    checkBlocks([block('a')], limits, seen)
    expect(() => checkBlocks([block('a')], limits, seen)).toThrow(
      expect.objectContaining({ code: 'duplicate_tool_use_id' }),
    )
  })
})

describe('runFingerprint', () => {
  it('ignores key order and undefined fields but not values', () => {
    expect(runFingerprint({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(
      runFingerprint({ b: [1, { d: 3, c: 2 }], a: 1, e: undefined }),
    )
    expect(runFingerprint({ a: 1 })).not.toBe(runFingerprint({ a: 2 }))
    expect(runFingerprint({ a: [1, 2] })).not.toBe(runFingerprint({ a: [2, 1] }))
  })
})

describe('runOptionsOf and permissionTimeoutOf', () => {
  const operator = { maxToolUseConcurrency: 4, maxResultChars: 1000, permissionTimeoutMs: 60_000 }

  it('lets a request lower the concurrency cap but never raise it', () => {
    expect(runOptionsOf({ max_concurrency: 2 }, operator).maxConcurrency).toBe(2)
    expect(runOptionsOf({ max_concurrency: 50 }, operator).maxConcurrency).toBe(4)
    expect(runOptionsOf({}, operator)).toEqual({ maxConcurrency: 4, cancelOnError: 'bash', maxResultChars: 1000 })
    expect(runOptionsOf({ timeout_ms: 5, call_timeout_ms: 3, cancel_on_error: 'none' }, operator)).toMatchObject({
      runTimeoutMs: 5,
      callTimeoutMs: 3,
      cancelOnError: 'none',
    })
  })

  it('gives wait:true runs no approver unless asked, and the others the operator default', () => {
    expect(permissionTimeoutOf('wait', {}, operator)).toBeUndefined()
    expect(permissionTimeoutOf('wait', { permission_timeout_ms: 10 }, operator)).toBe(10)
    expect(permissionTimeoutOf('async', {}, operator)).toBe(60_000)
    expect(permissionTimeoutOf('stream', { permission_timeout_ms: 0 }, operator)).toBe(0)
  })
})

describe('the run request of each entrance', () => {
  it('maps a POST body: wait picks the mode, options pass through, the key is bound to the whole body', () => {
    const body = { wait: true, session_id: 'ses_1', tool_uses: [block('a')], max_concurrency: 2 }
    const request = requestFromBody(body, { tenant: 't', idempotencyKey: 'k' }, limits)
    expect(request).toMatchObject({ tenant: 't', sessionId: 'ses_1', mode: 'wait', options: { max_concurrency: 2 } })
    expect(request.input.blocks).toEqual([block('a')])
    expect(request.idempotency).toEqual({ key: 'k', fingerprint: runFingerprint(body) })
    const plain = requestFromBody({ tool_uses: [block('a')] }, { tenant: 't' }, limits)
    expect(plain.mode).toBe('async')
    expect('idempotency' in plain || 'sessionId' in plain).toBe(false)
  })

  it('refuses a POST body with no blocks as prepareRunInput does', () => {
    expect(() => requestFromBody({ tool_uses: [] }, { tenant: 't' }, limits)).toThrow(/no tool_use blocks/)
  })

  it('opens a stream run with no blocks, streaming into the given content', () => {
    const content: Array<{ type: string }> = []
    const request = requestFromStreamStart({ type: 'run.start', timeout_ms: 5000 }, { tenant: 't' }, content)
    expect(request).toMatchObject({ tenant: 't', mode: 'stream', options: { timeout_ms: 5000 } })
    expect(request.input.blocks).toEqual([])
    expect(request.input.parentMessage.content).toBe(content)
  })

  it('makes an MCP call a one-block wait run in the caller session, with default options', () => {
    const request = requestFromMcpCall(block('a'), { tenant: 't', sessionId: 'ses_2' }, limits)
    expect(request).toMatchObject({ tenant: 't', sessionId: 'ses_2', mode: 'wait', options: {} })
    expect(request.input.blocks).toEqual([block('a')])
  })
})
