// A port nothing listens on right now, for servers a test starts as separate processes.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/**
 * The kernel's ephemeral range: `listen(0)` picks from it, and so does every outgoing
 * connection's source port. A port taken from it could be some client's before the test's server
 * binds it (redis-server once failed with "Address already in use" that way), so ports are chosen
 * below it, where only a deliberate bind can land.
 */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768
  } catch {
    return 32768
  }
}

const FIRST = 10_000
const below = Math.max(FIRST + 1_000, ephemeralLow())

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = FIRST + Math.floor(Math.random() * (below - FIRST))
    if (await bindable(port)) return port
  }
  throw new Error(`no free port between ${FIRST} and ${below} in 50 tries`)
}
