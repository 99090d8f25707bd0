import { type Stats, statfsSync } from 'node:fs'
import path from 'node:path'
import { keptFileReader } from './kept-file-reader.js'

/**
 * Whether a small rewrite may be written on the event loop instead of the threadpool
 * (docs/adr/0545-small-rewrites-are-written-inline-while-the-kernel-has-no-dirty-pressure.md).
 * The threadpool is there for one hazard (docs/adr/0481): the kernel throttles a writer for up to
 * 200 ms once dirty pages pass the point between its background and its dirty limit. Below the
 * background limit it never does, so a write is inline only while every limit that applies is far
 * from reached, on a local file system, and no inline write was slow lately. The counts are read
 * on the threadpool ahead of need, never on the event loop, from descriptors kept open (0565).
 */

/** ext2/3/4, xfs, btrfs, tmpfs, overlayfs (statfs f_type): no network or FUSE server behind a write. */
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630])
/**
 * A sample of the kernel's dirty counts is trusted this long, and read again at half of it: the
 * room between calm and throttling, half the dirty limit, takes longer to fill (docs/adr/0545).
 */
const SAMPLE_MS = 20
/** An inline write slower than this sends writes back to the threadpool for SLOW_BACKOFF_MS. */
const SLOW_WRITE_MS = 5
const SLOW_BACKOFF_MS = 10_000
/** The dirty limits' settings and the memory cgroup are read again once this old. */
const LAYOUT_MS = 1_000

/** One writeback domain: bytes dirty or under writeback, and the kernel's background limit for it. */
export type DirtyDomain = { dirty: number; backgroundLimit: number }

/** Calm: every domain's dirty bytes at most half its background limit, where the kernel never throttles. */
export function domainsCalm(domains: DirtyDomain[] | undefined): boolean {
  return domains?.every((domain) => domain.dirty * 2 <= domain.backgroundLimit) ?? false
}

/** The value of the `key 123` line of /proc/vmstat or memory.stat: found by name, not every line parsed. */
function field(text: string, key: string): number | undefined {
  const at = text.startsWith(`${key} `) ? 0 : text.indexOf(`\n${key} `) + 1
  if (at === 0 && !text.startsWith(`${key} `)) return undefined
  const start = at + key.length + 1
  const end = text.indexOf('\n', start)
  const value = Number(text.slice(start, end === -1 ? undefined : end))
  return Number.isFinite(value) ? value : undefined
}

/** A count that must be there: a kernel that does not give it gives no answer. */
function required(text: string, key: string): number {
  const value = field(text, key)
  if (value === undefined) throw new Error(`no ${key} count`)
  return value
}

type Read = (file: string) => Promise<string>

/**
 * What changes rarely, read once a second: vm.dirty_background_ratio and this process's memory
 * cgroup (version 2) when it or an ancestor has a memory.max (each limit's memory.current file
 * and value). Undefined when a background limit is set in bytes (vm.dirty_background_bytes: the
 * counts are in pages, whose size Node does not give) or cannot be read: the threadpool then.
 */
export type DirtyLayout = { ratio: number; cgroup?: { stat: string; limits: { current: string; max: number }[] } }

export async function readDirtyLayout(read: Read): Promise<DirtyLayout | undefined> {
  try {
    if (Number((await read('/proc/sys/vm/dirty_background_bytes')).trim()) !== 0) return undefined
    const ratio = Number((await read('/proc/sys/vm/dirty_background_ratio')).trim())
    if (!(ratio > 0)) return undefined
    const cgroup = await memoryCgroup(read)
    return cgroup ? { ratio, cgroup } : { ratio }
  } catch {
    return undefined
  }
}

/**
 * This process's memory cgroup when a memory.max at it or above bounds it: each is a writeback
 * domain of its own (mem_cgroup_wb_stats). Version 1 memory cgroups (a hybrid host, no
 * cgroup.controllers at the mount) have none, nor does a tree without a limit.
 */
async function memoryCgroup(read: Read): Promise<DirtyLayout['cgroup']> {
  const own = /^0::(\/.*)$/m.exec(await read('/proc/self/cgroup'))?.[1]
  if (own === undefined || (await tryRead(read, '/sys/fs/cgroup/cgroup.controllers')) === undefined) return undefined
  const at = (group: string, file: string) => path.posix.join('/sys/fs/cgroup', group, file)
  const limits: { current: string; max: number }[] = []
  for (let group = own; ; group = path.posix.dirname(group)) {
    const max = (await tryRead(read, at(group, 'memory.max')))?.trim()
    if (max !== undefined && max !== 'max') limits.push({ current: at(group, 'memory.current'), max: Number(max) })
    if (group === '/') break
  }
  return limits.length > 0 ? { stat: at(own, 'memory.stat'), limits } : undefined
}

/**
 * What the kernel's dirty accounting says now, or undefined when it cannot be read (then: the
 * threadpool). The host's domain from /proc/vmstat, in pages: dirty and under writeback against
 * the background ratio of its dirtyable memory, free and file pages (global_dirtyable_memory;
 * its reserves not taken off, which half the limit covers). The memory cgroup's in bytes: its
 * `file_dirty` and `file_writeback` against the ratio of its file pages and the least headroom
 * of the limits above it (memory.stat counts its descendants, the tools it starts included).
 */
export async function readDirtyDomains(read: Read, layout: DirtyLayout): Promise<DirtyDomain[] | undefined> {
  try {
    const share = layout.ratio / 100
    const vm = await read('/proc/vmstat')
    const page = (key: string) => required(vm, key)
    const dirtyable = page('nr_free_pages') + page('nr_active_file') + page('nr_inactive_file')
    const domains = [{ dirty: page('nr_dirty') + page('nr_writeback'), backgroundLimit: share * dirtyable }]
    if (layout.cgroup) {
      const stat = await read(layout.cgroup.stat)
      const currents = await Promise.all(layout.cgroup.limits.map((limit) => read(limit.current)))
      const headroom = Math.min(
        ...layout.cgroup.limits.map((limit, index) => Math.max(0, limit.max - Number(currents[index]?.trim()))),
      )
      domains.push({
        dirty: required(stat, 'file_dirty') + required(stat, 'file_writeback'),
        backgroundLimit: share * (required(stat, 'file') + headroom),
      })
    }
    return domains
  } catch {
    return undefined
  }
}

/** The host's domains, its layout read again each LAYOUT_MS. */
export function dirtyDomainsOf(read: Read, now: () => number): () => Promise<DirtyDomain[] | undefined> {
  let layout: DirtyLayout | undefined
  let layoutAt = Number.NEGATIVE_INFINITY
  return async () => {
    if (now() - layoutAt >= LAYOUT_MS) {
      layoutAt = now()
      layout = await readDirtyLayout(read)
    }
    return layout && readDirtyDomains(read, layout)
  }
}

async function tryRead(read: Read, file: string): Promise<string | undefined> {
  try {
    return await read(file)
  } catch {
    return undefined
  }
}

/** What the policy asks of the host: injectable so its rules are tested without one. */
export type InlineWriteHost = {
  now(): number
  dirtyDomains(): Promise<DirtyDomain[] | undefined>
  /** statfs of the open file: true for a local file system. */
  localFileSystem(fd: number): boolean
}

const now = () => performance.now()
const realHost: InlineWriteHost = {
  now,
  // Each file kept open and read with one pread: one threadpool round trip per file and sample
  // (docs/adr/0565-kernel-counts-are-read-from-kept-descriptors.md).
  dirtyDomains: dirtyDomainsOf(keptFileReader(), now),
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
  let sampling = false
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
  // Read on the threadpool, never on the event loop; the sample dates from when its read began.
  const sample = (startedAt: number) => {
    sampling = true
    host.dirtyDomains().then(
      (domains) => {
        calm = domainsCalm(domains)
        sampledAt = startedAt
        sampling = false
      },
      () => {
        calm = false
        sampling = false
      },
    )
  }
  return {
    mayWriteInline(fd: number, stats: Pick<Stats, 'dev'>, size: number): boolean {
      if (size > limit) return false
      const now = host.now()
      if (now < slowUntil) return false
      if (!onLocalFileSystem(fd, stats.dev)) return false
      // Read again once half its age is spent, so that writes in a stream always find a fresh one.
      if (now - sampledAt >= SAMPLE_MS / 2 && !sampling) sample(now)
      return calm && now - sampledAt < SAMPLE_MS
    },
    noteInlineWrite(milliseconds: number): void {
      if (milliseconds > SLOW_WRITE_MS) slowUntil = host.now() + SLOW_BACKOFF_MS
    },
  }
}
