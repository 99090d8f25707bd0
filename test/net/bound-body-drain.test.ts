// Pins where the bounded drain of an early answer applies: real connections only.
import type { IncomingMessage } from 'node:http'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { boundBodyDrain } from '../../src/net/bound-body-drain.js'

const bounds = { maxBytes: 1, totalMs: 10, idleMs: 5 }

afterEach(() => {
  vi.useRealTimers()
})

describe('boundBodyDrain', () => {
  it('leaves an injected request alone: its stand-in socket has no destroy()', async () => {
    vi.useFakeTimers()
    const app = Fastify()
    let raw: IncomingMessage | undefined
    app.get('/', (request, reply) => {
      raw = request.raw
      reply.send('ok')
    })
    await app.inject({ method: 'GET', url: '/' })
    expect(raw).toBeDefined()
    boundBodyDrain(Object.assign(Object.create(raw as IncomingMessage), { complete: false }), bounds)
    // With the drain armed on the stand-in socket, its check throws here (socket.destroy is not a function).
    expect(() => vi.advanceTimersByTime(100)).not.toThrow()
    await app.close()
  })

  it('ends a real connection whose body stops arriving', async () => {
    const server = createServer((request, response) => {
      response.end('early')
      boundBodyDrain(request, bounds)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const closed = new Promise<string>((resolve) => {
      const client = httpRequest({ port, method: 'POST', headers: { 'content-length': '1000' } }, (response) => {
        response.resume()
        response.on('end', () => undefined)
      })
      client.on('error', (error) => resolve(error.message))
      client.on('close', () => resolve('closed'))
      client.write('x')
    })
    expect(await closed).toMatch(/closed|socket hang up|ECONNRESET/)
    server.close()
  })
})
