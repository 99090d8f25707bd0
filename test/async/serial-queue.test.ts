// Pins createSerialQueue: tasks run one at a time in the order queued, a failed task hands its
// error to its caller without blocking the next one, and idle() waits for everything queued so far.
import { describe, expect, it } from 'vitest'
import { deferred } from '../../src/async/deferred.js'
import { createSerialQueue } from '../../src/async/serial-queue.js'

describe('createSerialQueue', () => {
  it('starts each task only after the one before it has settled', async () => {
    const queue = createSerialQueue()
    const first = deferred<string>()
    const log: string[] = []
    const a = queue.run(async () => {
      log.push('a started')
      return first.promise
    })
    const b = queue.run(() => {
      log.push('b started')
      return 'b'
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(log).toEqual(['a started'])
    first.resolve('a')
    expect(await Promise.all([a, b])).toEqual(['a', 'b'])
    expect(log).toEqual(['a started', 'b started'])
  })

  it('rejects a failed task to its caller and still runs the next one', async () => {
    const queue = createSerialQueue()
    const failed = queue.run(() => {
      throw new Error('boom')
    })
    const next = queue.run(() => 'next')
    await expect(failed).rejects.toThrow('boom')
    await expect(next).resolves.toBe('next')
  })

  it('idle() settles after every task queued so far, and does not reject when the last one failed', async () => {
    const queue = createSerialQueue()
    const gate = deferred<void>()
    let done = false
    queue
      .run(() => gate.promise)
      .then(() => {
        done = true
      })
    queue.run(() => Promise.reject(new Error('late'))).catch(() => {})
    const idle = queue.idle()
    gate.resolve()
    await expect(idle).resolves.toBeUndefined()
    expect(done).toBe(true)
  })
})
