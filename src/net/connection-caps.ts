/** Why a connection was refused (the `reason` label of toolexec_connections_refused_total). */
export type ConnectionRefusal = 'per_peer' | 'total'

export type ConnectionCapsOptions = {
  /** Connections open at once, whoever holds them. */
  maxTotal: number
  /** Connections open at once from one peer address. */
  maxPerPeer: number
  /** Peers the per-peer cap does not apply to (trusted proxies: each carries many clients). */
  exempt: (peer: string) => boolean
}

/**
 * Counts open connections per peer and in total, and decides at accept time whether one more
 * may open: one peer cannot take the descriptors everybody else needs
 * (docs/adr/0231-connection-caps.md).
 */
export function createConnectionCaps(options: ConnectionCapsOptions) {
  const perPeer = new Map<string, number>()
  let total = 0
  return {
    /** Counts the connection in, or answers why it may not open (then nothing is counted). */
    admit(peer: string): ConnectionRefusal | undefined {
      if (total >= options.maxTotal) return 'total'
      const held = perPeer.get(peer) ?? 0
      if (held >= options.maxPerPeer && !options.exempt(peer)) return 'per_peer'
      perPeer.set(peer, held + 1)
      total += 1
      return undefined
    },
    /** The admitted connection closed. */
    release(peer: string): void {
      const held = perPeer.get(peer) ?? 0
      if (held <= 1) perPeer.delete(peer)
      else perPeer.set(peer, held - 1)
      total = Math.max(0, total - 1)
    },
    open: () => total,
    peers: () => perPeer.size,
  }
}
