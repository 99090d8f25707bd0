import net from 'node:net'

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true
  if (bare.startsWith('::ffff:')) return isLoopbackHost(bare.slice('::ffff:'.length))
  return net.isIPv4(bare) && bare.startsWith('127.')
}
