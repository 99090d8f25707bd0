import { BlockList, isIPv4 } from 'node:net'

/** An IPv4 peer of a dual-stack socket reads `::ffff:10.0.0.1`; rules are written for `10.0.0.1`. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address
}

/** A predicate over peer addresses from `10.0.0.1` and `10.0.0.0/8` entries (IPv4 and IPv6). */
export function createAddressList(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => false
  const list = new BlockList()
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/')
    const type = isIPv4(address) ? 'ipv4' : 'ipv6'
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(prefix), type)
  }
  return (address) => {
    const plain = plainAddress(address)
    return list.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6')
  }
}
