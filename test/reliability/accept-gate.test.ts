// Pins where a capped connection is refused (docs/adr/0320-refuse-on-the-listening-handle.md):
// on the listening handle, before Node builds a Socket for it, so a flood of refusals allocates
// nothing per connection; admitted connections are counted out when they close, also when Node
// drops one itself (server.maxConnections). Counts, not timings: the cost is bench/connection-flood.ts's.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { gateConnections } from '../../src/net/accept-gate.js'
import { createConnectionCaps } from '../../src/net/connection-caps.js'

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

/** A plain TCP server behind the gate; `served` holds what reached the server's own listener. */
async function gatedServer(maxPerPeer: number) {
  const served: Socket[] = []
  const server = createServer((socket) => {
    served.push(socket)
  })
  servers.push(server)
  const caps = createConnectionCaps({ maxTotal: 1000, maxPerPeer, exempt: () => false })
  const refusals: string[] = []
  gateConnections(server, caps, (reason, peer) => refusals.push(`${reason} ${peer}`))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, caps, served, refusals, port: (server.address() as AddressInfo).port }
}

/** Connects from `from`; settles once the server has accepted (the first byte back) or closed it. */
function connectFrom(port: number, from: string) {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from })
  socket.on('error', () => undefined)
  socket.resume()
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  return { socket, closed }
}

describe('the accept gate', () => {
  it('refuses past the cap before a Socket exists, and only admitted connections reach the server', async () => {
    const { caps, served, refusals, port } = await gatedServer(3)
    const built: Socket[] = []
    const onSocket = (message: unknown) => {
      const { socket } = message as { socket: Socket }
      if (socket.localPort === port) built.push(socket)
    }
    subscribe('net.server.socket', onSocket)
    try {
      const clients = Array.from({ length: 10 }, () => connectFrom(port, '127.0.0.2'))
      // Seven are closed by the server; the three admitted stay open.
      let closed = 0
      await new Promise<void>((resolve) => {
        for (const client of clients)
          void client.closed.then(() => {
            closed += 1
            if (closed === 7) resolve()
          })
      })
      // Node built a Socket for the three admitted connections only.
      while (served.length < 3) await new Promise((resolve) => setImmediate(resolve))
      expect(built).toHaveLength(3)
      expect(served).toHaveLength(3)
      expect(refusals).toEqual(Array.from({ length: 7 }, () => 'per_peer 127.0.0.2'))
      expect(caps.open()).toBe(3)

      // Another address is not held to the first one's cap.
      const other = connectFrom(port, '127.0.0.3')
      while (served.length < 4) await new Promise((resolve) => setImmediate(resolve))
      expect(caps.open()).toBe(4)

      // Closed connections are counted out, and the peer may connect again.
      for (const client of [...clients, other]) client.socket.destroy()
      for (const socket of served) socket.destroy()
      while (caps.open() > 0) await new Promise((resolve) => setImmediate(resolve))
      expect(caps.peers()).toBe(0)
    } finally {
      unsubscribe('net.server.socket', onSocket)
    }
  })

  it('counts out a connection Node drops itself past server.maxConnections', async () => {
    const { server, caps, served, port } = await gatedServer(10)
    server.maxConnections = 1
    const first = connectFrom(port, '127.0.0.2')
    while (served.length < 1) await new Promise((resolve) => setImmediate(resolve))
    const second = connectFrom(port, '127.0.0.2')
    await second.closed
    expect(served).toHaveLength(1)
    expect(caps.open()).toBe(1)
    first.socket.destroy()
    for (const socket of served) socket.destroy()
  })
})
