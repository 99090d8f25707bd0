// Pins the per-instance lanes of older-revision MCP sessions: one session's calls run in order, one at a time; other sessions do not wait; a cancel by JSON-RPC id aborts only that call.
import { describe, expect, it } from 'vitest'
import { createSessionCalls } from '../../src/mcp/endpoint/session-calls.js'

function gate() {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

describe('session calls', () => {
  it("runs one session's calls one at a time, in order, and never holds another session's", async () => {
    const calls = createSessionCalls()
    const order: string[] = []
    const first = gate()
    const a1 = calls.run('mcp_a', 1, async () => {
      order.push('a1 start')
      await first.opened
      order.push('a1 end')
    })
    const a2 = calls.run('mcp_a', 2, async () => {
      order.push('a2')
    })
    await calls.run('mcp_b', 1, async () => {
      order.push('b1')
    })
    expect(order).toEqual(['a1 start', 'b1'])
    first.open()
    await Promise.all([a1, a2])
    expect(order).toEqual(['a1 start', 'b1', 'a1 end', 'a2'])
  })

  it('aborts the call a cancel names, and answers false for a call not running here', async () => {
    const calls = createSessionCalls()
    const running = calls.run('mcp_a', 'req-7', (cancelled) => {
      return new Promise<string>((resolve) => {
        cancelled.addEventListener('abort', () => resolve(String(cancelled.reason)), { once: true })
      })
    })
    // The task starts in a microtask after the lane's tail settles.
    await Promise.resolve()
    expect(calls.cancel('mcp_a', 'req-8', 'no such call')).toBe(false)
    expect(calls.cancel('mcp_other', 'req-7', 'other session')).toBe(false)
    expect(calls.cancel('mcp_a', 'req-7', 'changed my mind')).toBe(true)
    expect(await running).toBe('changed my mind')
    expect(calls.cancel('mcp_a', 'req-7', 'again')).toBe(false)
  })
})
