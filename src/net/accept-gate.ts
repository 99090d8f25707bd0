import type { Server, Socket } from 'node:net'
import { plainAddress } from './address-list.js'
import type { ConnectionRefusal } from './connection-caps.js'

/** The caps the gate asks (createConnectionCaps). */
type Caps = {
  admit(peer: string): ConnectionRefusal | undefined
  release(peer: string): void
}

/** An accepted connection before Node has built a Socket on it (libuv's TCP handle). */
type ClientHandle = { getpeername?: (out: { address?: string | undefined }) => number; close(): void }
/** The listening handle: libuv calls its `onconnection` once per accepted connection. */
type ListenHandle = { onconnection?: (this: ListenHandle, status: number, client?: ClientHandle) => void }

/**
 * Holds `server`'s connections to `caps`: a connection past a cap is closed at accept time,
 * before a Socket, a parser, timers or buffers exist for it; an admitted one is counted out when
 * it closes. The refusal runs on the listening handle's `onconnection` — the place where Node
 * itself drops connections past `server.maxConnections` — because a Socket built only to be
 * destroyed cost 2.5× as much per refusal and its garbage grew the heap under a flood
 * (docs/adr/0320-refuse-on-the-listening-handle.md). Where this Node has no such handle, the
 * refusal falls back to the server's 'connection' event.
 */
export function gateConnections(
  server: Server,
  caps: Caps,
  refused: (reason: ConnectionRefusal, peer: string) => void,
) {
  let atAccept = false
  // The peer the gate admitted, for the 'connection' event Node emits synchronously from `accept`:
  // asking the socket again could answer nothing once the peer has reset, and the count would leak.
  let admitted: string | undefined
  server.on('listening', () => {
    const handle = (server as unknown as { _handle?: ListenHandle })._handle
    const accept = handle?.onconnection
    if (handle === undefined || accept === undefined) return
    atAccept = true
    const address: { address?: string | undefined } = {}
    handle.onconnection = function gate(status, client) {
      if (status < 0 || client === undefined) return accept.call(this, status, client)
      address.address = undefined
      client.getpeername?.(address)
      const peer = plainAddress(address.address ?? 'unknown')
      const refusal = caps.admit(peer)
      if (refusal !== undefined) {
        refused(refusal, peer)
        client.close()
        return
      }
      admitted = peer
      accept.call(this, status, client)
      // Node dropped it itself (server.maxConnections): no socket will close to count it out.
      if (admitted !== undefined) caps.release(peer)
      admitted = undefined
    }
  })

  // In front of the HTTP server's own listeners, which must never see a refused socket.
  const serve = server.listeners('connection') as Array<(socket: Socket) => void>
  server.removeAllListeners('connection')
  server.on('connection', (socket: Socket) => {
    let peer = admitted
    admitted = undefined
    if (!atAccept || peer === undefined) {
      peer = plainAddress(socket.remoteAddress ?? 'unknown')
      const refusal = caps.admit(peer)
      if (refusal !== undefined) {
        refused(refusal, peer)
        socket.destroy()
        return
      }
    }
    const counted = peer
    socket.once('close', () => caps.release(counted))
    for (const listener of serve) listener.call(server, socket)
  })
}
