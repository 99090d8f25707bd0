// Pins docs/adr/0545: a small rewrite is written inline only while the kernel's dirty counts are
// far below every background limit that applies (global, and this process's memory cgroup when
// a limit bounds it), on a local file system, and not after a slow inline write. The host is
// injected: no test depends on this machine's memory, file systems or clock.
import { describe, expect, it } from 'vitest'
import {
  createInlineWritePolicy,
  type DirtyDomain,
  domainsCalm,
  type InlineWriteHost,
  readDirtyDomains,
} from '../../../src/tools/shared/write-pressure.js'

const MIB = 1024 * 1024

function meminfo(kib: {
  free: number
  active: number
  inactive: number
  available: number
  dirty: number
  writeback: number
}) {
  return [
    'MemTotal:       24000000 kB',
    `MemFree:        ${kib.free} kB`,
    `MemAvailable:   ${kib.available} kB`,
    `Active(file):   ${kib.active} kB`,
    `Inactive(file): ${kib.inactive} kB`,
    `Dirty:          ${kib.dirty} kB`,
    `Writeback:      ${kib.writeback} kB`,
    '',
  ].join('\n')
}

/** A host's files by name; a missing one throws as readFileSync does. */
function files(entries: Record<string, string>) {
  return (file: string) => {
    const text = entries[file]
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' })
    return text
  }
}

const HYBRID = {
  '/proc/meminfo': meminfo({
    free: 800_000,
    active: 100_000,
    inactive: 100_000,
    available: 2_000_000,
    dirty: 30_000,
    writeback: 2_000,
  }),
  '/proc/sys/vm/dirty_background_ratio': '10\n',
  '/proc/sys/vm/dirty_background_bytes': '0\n',
  '/proc/self/cgroup': '4:memory:/some/group\n0::/\n',
}

describe('the kernel dirty domains', () => {
  it('global: dirty and writeback against the background ratio of free and file pages', () => {
    expect(readDirtyDomains(files(HYBRID))).toEqual([{ dirty: 32_000 * 1024, backgroundLimit: 0.1 * 1_000_000 * 1024 }])
  })

  it('dirtyable memory is never taken above MemAvailable', () => {
    const host = {
      ...HYBRID,
      '/proc/meminfo': meminfo({
        free: 800_000,
        active: 100_000,
        inactive: 100_000,
        available: 500_000,
        dirty: 0,
        writeback: 0,
      }),
    }
    expect(readDirtyDomains(files(host))?.[0]?.backgroundLimit).toBe(0.1 * 500_000 * 1024)
  })

  it('vm.dirty_background_bytes replaces the ratio when set', () => {
    const host = {
      ...HYBRID,
      '/proc/sys/vm/dirty_background_ratio': '0\n',
      '/proc/sys/vm/dirty_background_bytes': '52428800\n',
    }
    expect(readDirtyDomains(files(host))?.[0]?.backgroundLimit).toBe(50 * MIB)
  })

  it('a version 2 memory cgroup with a limit above it is a domain of its own, headroom the least of its limits', () => {
    const host = {
      ...HYBRID,
      '/proc/self/cgroup': '0::/system.slice/toolexec.service\n',
      '/sys/fs/cgroup/cgroup.controllers': 'cpu io memory pids\n',
      '/sys/fs/cgroup/system.slice/toolexec.service/memory.max': 'max\n',
      '/sys/fs/cgroup/system.slice/memory.max': `${1024 * MIB}\n`,
      '/sys/fs/cgroup/system.slice/memory.current': `${824 * MIB}\n`,
      '/sys/fs/cgroup/system.slice/toolexec.service/memory.stat': `anon 1000\nfile ${100 * MIB}\nfile_dirty ${7 * MIB}\nfile_writeback ${1 * MIB}\n`,
    }
    expect(readDirtyDomains(files(host))).toEqual([
      { dirty: 32_000 * 1024, backgroundLimit: 0.1 * 1_000_000 * 1024 },
      { dirty: 8 * MIB, backgroundLimit: 0.1 * 300 * MIB },
    ])
  })

  it('no limit anywhere in the cgroup tree, or a hybrid host: the global domain only', () => {
    const unlimited = {
      ...HYBRID,
      '/proc/self/cgroup': '0::/a\n',
      '/sys/fs/cgroup/cgroup.controllers': 'memory\n',
      '/sys/fs/cgroup/a/memory.max': 'max\n',
    }
    expect(readDirtyDomains(files(unlimited))).toHaveLength(1)
    expect(readDirtyDomains(files({ ...HYBRID, '/proc/self/cgroup': '0::/a\n' }))).toHaveLength(1)
  })

  it('an unreadable /proc/meminfo gives no answer, and no answer is not calm', () => {
    expect(readDirtyDomains(files({}))).toBeUndefined()
    expect(domainsCalm(undefined)).toBe(false)
  })

  it('calm up to half of every background limit', () => {
    const domains = (dirty: number): DirtyDomain[] => [
      { dirty: 0, backgroundLimit: 100 },
      { dirty, backgroundLimit: 100 },
    ]
    expect(domainsCalm(domains(50))).toBe(true)
    expect(domainsCalm(domains(51))).toBe(false)
  })
})

/** A host whose clock, dirty counts and file systems the test sets. */
function fakeHost(start: { dirty: number; local?: boolean }) {
  const state = { now: 0, dirty: start.dirty, local: start.local ?? true, samples: 0, statfs: 0 }
  const host: InlineWriteHost = {
    now: () => state.now,
    dirtyDomains: () => {
      state.samples++
      return [{ dirty: state.dirty, backgroundLimit: 100 }]
    },
    localFileSystem: () => {
      state.statfs++
      return state.local
    },
  }
  return { state, host }
}

describe('the inline write policy', () => {
  it('inline while calm, up to its size limit', () => {
    const { host } = fakeHost({ dirty: 10 })
    const policy = createInlineWritePolicy(64, host)
    expect(policy.mayWriteInline(3, { dev: 1 }, 64)).toBe(true)
    expect(policy.mayWriteInline(3, { dev: 1 }, 65)).toBe(false)
  })

  it('the threadpool under dirty pressure, seen at the next sample, not before', () => {
    const { state, host } = fakeHost({ dirty: 10 })
    const policy = createInlineWritePolicy(64, host)
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
    state.dirty = 90
    state.now = 19
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
    expect(state.samples).toBe(1)
    state.now = 20
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
    expect(state.samples).toBe(2)
  })

  it('a file system that is not local keeps the threadpool, asked once per device', () => {
    const { state, host } = fakeHost({ dirty: 0, local: false })
    const policy = createInlineWritePolicy(64, host)
    expect(policy.mayWriteInline(3, { dev: 7 }, 10)).toBe(false)
    expect(policy.mayWriteInline(4, { dev: 7 }, 10)).toBe(false)
    expect(state.statfs).toBe(1)
    state.local = true
    expect(policy.mayWriteInline(5, { dev: 8 }, 10)).toBe(true)
  })

  it('a slow inline write sends writes to the threadpool for ten seconds', () => {
    const { state, host } = fakeHost({ dirty: 0 })
    const policy = createInlineWritePolicy(64, host)
    policy.noteInlineWrite(5)
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
    policy.noteInlineWrite(6)
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
    state.now = 9_999
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
    state.now = 10_000
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
  })

  it('no answer about the dirty counts keeps the threadpool', () => {
    const policy = createInlineWritePolicy(64, {
      now: () => 0,
      dirtyDomains: () => undefined,
      localFileSystem: () => true,
    })
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
  })
})
