// Pins the SSE fan-out's shared HTTP chunks (ADR 0450, 0455): one chunk per turn carries exactly
// the events' SSE texts, framed by their UTF-8 byte count, and subscribers with the same turn
// share it.
import { describe, expect, it } from 'vitest'
import { sseChunk, sseText, sseTurnChunk } from '../../routes/v1/runs/sse-chunk.js'
import type { RunEvent } from '../../src/events/run-event.js'

const event = (seq: number, text: string) =>
  ({
    type: 'tool.progress',
    tool_use_id: 'toolu_a',
    progress: text,
    seq,
    run_id: 'run_a',
    ts: '2026-11-26T02:00:00.000Z',
  }) as unknown as RunEvent

/** The SSE text inside one HTTP/1.1 chunk, after checking its size line against its bytes. */
function unframe(chunk: Buffer): string {
  const head = chunk.indexOf('\r\n')
  const size = Number.parseInt(chunk.subarray(0, head).toString(), 16)
  const body = chunk.subarray(head + 2, chunk.length - 2)
  expect(body.length).toBe(size)
  expect(chunk.subarray(chunk.length - 2).toString()).toBe('\r\n')
  return body.toString()
}

describe('sseTurnChunk', () => {
  it('frames a turn of events as one chunk of their texts, counting bytes, not characters', () => {
    const events = [event(1, 'héllo'), event(2, '日本'), event(3, 'plain')]
    expect(unframe(sseTurnChunk(events))).toBe(events.map(sseText).join(''))
  })

  it("is an event's own chunk for one event", () => {
    const one = event(1, 'x')
    expect(sseTurnChunk([one])).toBe(sseChunk(one))
  })

  it('shares the chunk between subscribers with the same turn, and builds another for a different one', () => {
    const events = [event(1, 'a'), event(2, 'b'), event(3, 'c')]
    const first = sseTurnChunk(events)
    expect(sseTurnChunk([...events])).toBe(first)
    // A subscriber that joined mid-turn has fewer events of it.
    const later = sseTurnChunk(events.slice(1))
    expect(later).not.toBe(first)
    expect(unframe(later)).toBe(events.slice(1).map(sseText).join(''))
  })
})
