import { readFileSync, type Stats, statfsSync } from 'node:fs'
import path from 'node:path'

/**
 * Whether a small rewrite may be written on the event loop instead of the threadpool
 * (docs/adr/0545-small-rewrites-are-written-inline-while-the-kernel-has-no-dirty-pressure.md).
 * The threadpool is there for one hazard (docs/adr/0481): the kernel throttles a writer for up to
 * 200 ms once dirty pages pass the point between its background and its dirty limit. Below the
 * background limit it never does, so a write is inline only while every limit that applies is far
 * from reached, on a local file system, and no inline write was slow lately.
 */

/** ext2/3/4, xfs, btrfs, tmpfs, overlayfs (statfs f_type): no network or FUSE server behind a write. */
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630])
/** The kernel's dirty counts are read again once this old: the room left below throttling is half the dirty limit (docs/adr/0545). */
const SAMPLE_MS = 20
/** An inline write slower than this sends writes back to the threadpool for SLOW_BACKOFF_MS. */
const SLOW_WRITE_MS = 5
const SLOW_BACKOFF_MS = 10_000

/** One writeback domain: bytes dirty or under writeback, and the kernel's background limit for it. */
export type DirtyDomain = { dirty: number; backgroundLimit: number }

/** Calm: every domain's dirty bytes at most half its background limit, where the kernel never throttles. */
export function domainsCalm(domains: DirtyDomain[] | undefined): boolean {
  return domains?.every((domain) => domain.dirty * 2 <= domain.backgroundLimit) ?? false
}

/** `Key:   123 kB` lines of /proc/meminfo (or `key 123` lines of memory.stat), as numbers. */
function fields(text: string): Map<string, number> {
  const values = new Map<string, number>()
  for (const line of text.split('\n')) {
    const match = /^([\w()]+):?\s+(\d+)/.exec(line)
    if (match) values.set(match[1] as string, Number(match[2]))
  }
  return values
}

/** The background limit of a domain of `dirtyable` bytes: vm.dirty_background_bytes, else the ratio. */
function backgroundLimit(dirtyable: number, ratio: number, bytes: number, globalDirtyable: number): number {
  // A memory cgroup's limit in bytes is the global one scaled to its share (mm/page-writeback.c).
  if (bytes > 0) return Math.min(bytes, (bytes * dirtyable) / Math.max(globalDirtyable, 1))
  return (ratio / 100) * dirtyable
}

/** What the kernel's dirty accounting says now, or undefined when it cannot be read (then: the threadpool). */
export function readDirtyDomains(
  read: (file: string) => string = (file) => readFileSync(file, 'latin1'),
): DirtyDomain[] | undefined {
  try {
    const memory = fields(read('/proc/meminfo'))
    const kib = (key: string) => {
      const value = memory.get(key)
      if (value === undefined) throw new Error(`no ${key} in /proc/meminfo`)
      return value * 1024
    }
    const ratio = Number(read('/proc/sys/vm/dirty_background_ratio').trim())
    const bytes = Number(read('/proc/sys/vm/dirty_background_bytes').trim())
    // The kernel's dirtyable memory: free pages and file pages (global_dirtyable_memory).
    const dirtyable = Math.min(kib('MemFree') + kib('Active(file)') + kib('Inactive(file)'), kib('MemAvailable'))
    const domains = [
      { dirty: kib('Dirty') + kib('Writeback'), backgroundLimit: backgroundLimit(dirtyable, ratio, bytes, dirtyable) },
    ]
    const group = memoryCgroupDomain(read)
    if (group) {
      domains.push({ dirty: group.dirty, backgroundLimit: backgroundLimit(group.dirtyable, ratio, bytes, dirtyable) })
    }
    return domains
  } catch {
    return undefined
  }
}

/**
 * This process's memory cgroup (version 2) as a writeback domain of its own, when it or an
 * ancestor has a memory.max: its dirty and writeback bytes (memory.stat counts its descendants,
 * the tools it starts included), and its dirtyable memory, its file pages and the least headroom
 * of those limits (mem_cgroup_wb_stats). Version 1 memory cgroups have no writeback domain, nor
 * does a tree without a limit: the global domain is then the only one.
 */
function memoryCgroupDomain(read: (file: string) => string): { dirty: number; dirtyable: number } | undefined {
  const own = /^0::(\/.*)$/m.exec(read('/proc/self/cgroup'))?.[1]
  // A hybrid host (no cgroup.controllers at the mount) keeps the memory controller at version 1.
  if (own === undefined || tryRead(read, '/sys/fs/cgroup/cgroup.controllers') === undefined) return undefined
  const at = (group: string, file: string) => path.posix.join('/sys/fs/cgroup', group, file)
  let headroom: number | undefined
  for (let group = own; ; group = path.posix.dirname(group)) {
    const max = tryRead(read, at(group, 'memory.max'))?.trim()
    if (max !== undefined && max !== 'max') {
      const room = Math.max(0, Number(max) - Number(read(at(group, 'memory.current')).trim()))
      headroom = Math.min(headroom ?? room, room)
    }
    if (group === '/') break
  }
  if (headroom === undefined) return undefined
  const stat = fields(read(at(own, 'memory.stat')))
  return {
    dirty: (stat.get('file_dirty') ?? 0) + (stat.get('file_writeback') ?? 0),
    dirtyable: (stat.get('file') ?? 0) + headroom,
  }
}

function tryRead(read: (file: string) => string, file: string): string | undefined {
  try {
    return read(file)
  } catch {
    return undefined
  }
}

/** What the policy asks of the host: injectable so its rules are tested without one. */
export type InlineWriteHost = {
  now(): number
  dirtyDomains(): DirtyDomain[] | undefined
  /** statfs of the open file: true for a local file system. */
  localFileSystem(fd: number): boolean
}

const realHost: InlineWriteHost = {
  now: () => performance.now(),
  dirtyDomains: () => readDirtyDomains(),
  localFileSystem(fd) {
    try {
      return LOCAL_FILE_SYSTEMS.has(statfsSync(`/proc/self/fd/${fd}`).type)
    } catch {
      return false
    }
  },
}

/**
 * `mayWriteInline(fd, stats, size)`: true when `size` bytes may be written inline to the file
 * open on `fd`: at most `limit`, on a local file system (known per device), the kernel's dirty
 * counts calm when last read (at most SAMPLE_MS ago), and no inline write slow in the last
 * SLOW_BACKOFF_MS. `noteInlineWrite(ms)`: how long an inline write took.
 */
export function createInlineWritePolicy(limit: number, host: InlineWriteHost = realHost) {
  let sampledAt = Number.NEGATIVE_INFINITY
  let calm = false
  let slowUntil = Number.NEGATIVE_INFINITY
  const localDevices = new Map<number, boolean>()
  const onLocalFileSystem = (fd: number, device: number) => {
    const known = localDevices.get(device)
    if (known !== undefined) return known
    const local = host.localFileSystem(fd)
    // Devices are few; a host that mounts and unmounts many starts over rather than grow.
    if (localDevices.size >= 64) localDevices.clear()
    localDevices.set(device, local)
    return local
  }
  return {
    mayWriteInline(fd: number, stats: Pick<Stats, 'dev'>, size: number): boolean {
      if (size > limit) return false
      const now = host.now()
      if (now < slowUntil) return false
      if (!onLocalFileSystem(fd, stats.dev)) return false
      if (now - sampledAt >= SAMPLE_MS) {
        calm = domainsCalm(host.dirtyDomains())
        sampledAt = now
      }
      return calm
    },
    noteInlineWrite(milliseconds: number): void {
      if (milliseconds > SLOW_WRITE_MS) slowUntil = host.now() + SLOW_BACKOFF_MS
    },
  }
}
