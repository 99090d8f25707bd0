import fp from 'fastify-plugin'
import { Counter, Gauge } from 'prom-client'
import { ApiError } from '../src/errors/api-error.js'
import { gateConnections } from '../src/net/accept-gate.js'
import { createAddressList } from '../src/net/address-list.js'
import { boundBodyDrain } from '../src/net/bound-body-drain.js'
import { type ConnectionRefusal, createConnectionCaps } from '../src/net/connection-caps.js'

/** A flood cannot fill the log: refusals are summed and logged at most this often per reason. */
const REFUSAL_LOG_INTERVAL_MS = 10_000

/**
 * Connections before any key is checked (docs/security.md#connections): a cap per peer address
 * and in total (set below the descriptor limit), refused at accept time by closing the socket;
 * behind trusted proxies, a cap per forwarded client on requests and upgrades in flight (429);
 * and a bounded read of the rest of a body answered early, so the client reads its answer.
 * Timeouts on headers and idle keep-alive are the server's own (app.ts).
 */
export const connectionLimitsPlugin = fp(
  async (app) => {
    const { connections } = app.config
    const isTrustedProxy = createAddressList(connections.trustedProxies)
    const caps = createConnectionCaps({
      maxTotal: connections.maxTotal,
      maxPerPeer: connections.maxPerPeer,
      exempt: isTrustedProxy,
    })
    const registers = [app.metrics.registry]
    new Gauge({
      name: 'toolexec_connections_open',
      help: 'Client connections open (WebSockets included)',
      registers,
      collect() {
        this.set(caps.open())
      },
    })
    const refused = new Counter({
      name: 'toolexec_connections_refused_total',
      help: 'Connections and proxied requests refused by a connection cap, by reason',
      labelNames: ['reason'] as const,
      registers,
    })
    const pending = new Map<ConnectionRefusal | 'per_client', { count: number; peer: string }>()
    let flushing = false
    const noteRefusal = (reason: ConnectionRefusal | 'per_client', peer: string) => {
      refused.inc({ reason })
      const entry = pending.get(reason) ?? { count: 0, peer }
      entry.count += 1
      entry.peer = peer
      pending.set(reason, entry)
      if (flushing) return
      flushing = true
      setTimeout(() => {
        flushing = false
        for (const [why, { count, peer: last }] of pending) {
          app.log.warn(
            {
              reason: why,
              refused: count,
              lastPeer: last,
              maxTotal: connections.maxTotal,
              maxPerPeer: connections.maxPerPeer,
            },
            'connections refused by a cap',
          )
        }
        pending.clear()
      }, REFUSAL_LOG_INTERVAL_MS).unref()
    }

    // Refused on the listening handle, before Node builds a Socket for the connection (ADR 0320).
    gateConnections(app.server, caps, noteRefusal)

    // An answer sent before the body was read (413, 401, 415, …): the connection is kept, so Node
    // reads and drops the rest of the body and the client reads its answer; the read is bounded.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!request.raw.complete) {
        // Fastify asks for a close after a body it refused; a close with the client's bytes unread is a reset.
        reply.removeHeader('connection')
        reply.raw.once('finish', () => boundBodyDrain(request.raw, connections.linger))
      }
      done(null, payload)
    })

    if (connections.trustedProxies.length > 0) {
      // Behind a proxy every client shares its address: the cap applies to the client it reports.
      const inFlight = new Map<string, number>()
      const release = (client: string) => {
        const held = (inFlight.get(client) ?? 1) - 1
        if (held <= 0) inFlight.delete(client)
        else inFlight.set(client, held)
      }
      app.addHook('onRequest', async (request, reply) => {
        if (!isTrustedProxy(request.raw.socket.remoteAddress ?? '')) return
        const client = request.ip
        const held = inFlight.get(client) ?? 0
        if (held >= connections.maxPerPeer) {
          noteRefusal('per_client', client)
          throw new ApiError(
            'too_many_connections',
            `${client} has ${held} requests and WebSockets open (TOOLEXEC_MAX_CONNECTIONS_PER_PEER=${connections.maxPerPeer})`,
            { retryAfterSeconds: 1 },
          )
        }
        inFlight.set(client, held + 1)
        // An upgrade holds its socket for the WebSocket's life; a request, its response's.
        const holder = request.headers.upgrade === undefined ? reply.raw : request.raw.socket
        holder.once('close', () => release(client))
      })
    }
  },
  { name: 'connection-limits', dependencies: ['config', 'metrics'] },
)
