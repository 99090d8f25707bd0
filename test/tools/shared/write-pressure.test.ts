// Pins docs/adr/0545: a small rewrite is written inline only while the kernel's dirty counts are
// far below every background limit that applies (global, and this process's memory cgroup when
// a limit bounds it), on a local file system, and not after a slow inline write. The host is
// injected: no test depends on this machine's memory, file systems or clock.
import { describe, expect, it } from 'vitest'
import {
  createInlineWritePolicy,
  type DirtyDomain,
  dirtyDomainsOf,
  domainsCalm,
  type InlineWriteHost,
  readDirtyDomains,
  readDirtyLayout,
} from '../../../src/tools/shared/write-pressure.js'

const MIB = 1024 * 1024

function vmstat(pages: { free: number; active: number; inactive: number; dirty: number; writeback: number }) {
  return [
    `nr_free_pages ${pages.free}`,
    'nr_zone_inactive_anon 5',
    `nr_inactive_file ${pages.inactive}`,
    `nr_active_file ${pages.active}`,
    `nr_dirty ${pages.dirty}`,
    `nr_writeback ${pages.writeback}`,
    'nr_writeback_temp 0',
    '',
  ].join('\n')
}

/** A host's files by name; a missing one throws as readFileSync does. */
function files(entries: Record<string, string>) {
  return async (file: string) => {
    const text = entries[file]
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' })
    return text
  }
}

const HYBRID = {
  '/proc/vmstat': vmstat({ free: 800_000, active: 100_000, inactive: 100_000, dirty: 30_000, writeback: 2_000 }),
  '/proc/sys/vm/dirty_background_ratio': '10\n',
  '/proc/sys/vm/dirty_background_bytes': '0\n',
  '/proc/self/cgroup': '4:memory:/some/group\n0::/\n',
}

const LIMITED = {
  ...HYBRID,
  '/proc/self/cgroup': '0::/system.slice/toolexec.service\n',
  '/sys/fs/cgroup/cgroup.controllers': 'cpu io memory pids\n',
  '/sys/fs/cgroup/system.slice/toolexec.service/memory.max': 'max\n',
  '/sys/fs/cgroup/system.slice/memory.max': `${1024 * MIB}\n`,
  '/sys/fs/cgroup/system.slice/memory.current': `${824 * MIB}\n`,
  '/sys/fs/cgroup/memory.max': `${2048 * MIB}\n`,
  '/sys/fs/cgroup/memory.current': `${1548 * MIB}\n`,
  '/sys/fs/cgroup/system.slice/toolexec.service/memory.stat': `anon 1000\nfile ${100 * MIB}\nfile_dirty ${7 * MIB}\nfile_writeback ${1 * MIB}\n`,
}

async function domainsOf(entries: Record<string, string>) {
  const read = files(entries)
  const layout = await readDirtyLayout(read)
  return layout && (await readDirtyDomains(read, layout))
}

describe('the kernel dirty domains', () => {
  it('the host: dirty and writeback pages against the background ratio of free and file pages', async () => {
    expect(await domainsOf(HYBRID)).toEqual([{ dirty: 32_000, backgroundLimit: 0.1 * 1_000_000 }])
  })

  it('a limit set in bytes, or no ratio, is not read: no answer', async () => {
    expect(
      await readDirtyLayout(files({ ...HYBRID, '/proc/sys/vm/dirty_background_bytes': '52428800\n' })),
    ).toBeUndefined()
    expect(await readDirtyLayout(files({ ...HYBRID, '/proc/sys/vm/dirty_background_ratio': '0\n' }))).toBeUndefined()
  })

  it('a version 2 memory cgroup under limits is a domain of its own, its headroom the least of theirs', async () => {
    expect(await domainsOf(LIMITED)).toEqual([
      { dirty: 32_000, backgroundLimit: 0.1 * 1_000_000 },
      { dirty: 8 * MIB, backgroundLimit: 0.1 * 300 * MIB },
    ])
  })

  it('no limit anywhere in the cgroup tree, or a hybrid host: the host domain only', async () => {
    const unlimited = {
      ...HYBRID,
      '/proc/self/cgroup': '0::/a\n',
      '/sys/fs/cgroup/cgroup.controllers': 'memory\n',
      '/sys/fs/cgroup/a/memory.max': 'max\n',
    }
    expect(await domainsOf(unlimited)).toHaveLength(1)
    expect(await domainsOf({ ...HYBRID, '/proc/self/cgroup': '0::/a\n' })).toHaveLength(1)
  })

  it('an unreadable count gives no answer, and no answer is not calm', async () => {
    const layout = await readDirtyLayout(files(HYBRID))
    expect(layout).toBeDefined()
    if (layout) expect(await readDirtyDomains(files({}), layout)).toBeUndefined()
    // A memory cgroup whose memory.stat has no dirty count (an old kernel) is no answer either.
    const stat = '/sys/fs/cgroup/system.slice/toolexec.service/memory.stat'
    expect(await domainsOf({ ...LIMITED, [stat]: `file ${100 * MIB}\n` })).toBeUndefined()
    expect(await readDirtyLayout(files({}))).toBeUndefined()
    expect(domainsCalm(undefined)).toBe(false)
  })

  it('the counts are read at every ask, the layout once a second', async () => {
    const reads: string[] = []
    const host = files(LIMITED)
    let clock = 0
    const domains = dirtyDomainsOf(
      (file) => {
        reads.push(file)
        return host(file)
      },
      () => clock,
    )
    await domains()
    const first = reads.length
    reads.length = 0
    clock = 999
    expect(await domains()).toHaveLength(2)
    expect(reads).toEqual([
      '/proc/vmstat',
      '/sys/fs/cgroup/system.slice/toolexec.service/memory.stat',
      '/sys/fs/cgroup/system.slice/memory.current',
      '/sys/fs/cgroup/memory.current',
    ])
    reads.length = 0
    clock = 1_000
    await domains()
    expect(reads).toHaveLength(first)
  })

  it('calm up to half of every background limit', async () => {
    const domains = (dirty: number): DirtyDomain[] => [
      { dirty: 0, backgroundLimit: 100 },
      { dirty, backgroundLimit: 100 },
    ]
    expect(domainsCalm(domains(50))).toBe(true)
    expect(domainsCalm(domains(51))).toBe(false)
  })
})

/** A host whose clock, dirty counts and file systems the test sets; its samples answer when the test lets them. */
function fakeHost(start: { dirty: number; local?: boolean }) {
  const state = { now: 0, dirty: start.dirty, local: start.local ?? true, samples: 0, statfs: 0 }
  const host: InlineWriteHost = {
    now: () => state.now,
    dirtyDomains: async () => {
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

/** Lets the pending sample's promise settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('the inline write policy', () => {
  it('the threadpool until a first sample says calm, then inline up to its size limit', async () => {
    const { host } = fakeHost({ dirty: 10 })
    const policy = createInlineWritePolicy(64, host)
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
    await settle()
    expect(policy.mayWriteInline(3, { dev: 1 }, 64)).toBe(true)
    expect(policy.mayWriteInline(3, { dev: 1 }, 65)).toBe(false)
  })

  it('samples again once 10 ms old, and never trusts one 20 ms old', async () => {
    const { state, host } = fakeHost({ dirty: 10 })
    const policy = createInlineWritePolicy(64, host)
    policy.mayWriteInline(3, { dev: 1 }, 10)
    await settle()
    state.now = 9
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
    expect(state.samples).toBe(1)
    state.dirty = 90
    state.now = 10
    // The sample read at 10 is not back yet: the one of 0 still holds.
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
    expect(state.samples).toBe(2)
    await settle()
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
  })

  it('a sample that does not come back in time leaves the threadpool', async () => {
    const { state, host } = fakeHost({ dirty: 10 })
    let answer: (() => void) | undefined
    let asked = 0
    const policy = createInlineWritePolicy(64, {
      ...host,
      dirtyDomains: () =>
        asked++ === 0
          ? host.dirtyDomains()
          : new Promise((resolve) => {
              answer = () => resolve([{ dirty: 0, backgroundLimit: 100 }])
            }),
    })
    policy.mayWriteInline(3, { dev: 1 }, 10)
    await settle()
    state.now = 15
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
    state.now = 20
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
    expect(asked).toBe(2)
    answer?.()
    await settle()
    // Dated from when its read began (15): fresh until 35.
    state.now = 34
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(true)
  })

  it('a file system that is not local keeps the threadpool, asked once per device', async () => {
    const { state, host } = fakeHost({ dirty: 0, local: false })
    const policy = createInlineWritePolicy(64, host)
    expect(policy.mayWriteInline(3, { dev: 7 }, 10)).toBe(false)
    await settle()
    expect(policy.mayWriteInline(4, { dev: 7 }, 10)).toBe(false)
    expect(state.statfs).toBe(1)
    state.local = true
    policy.mayWriteInline(5, { dev: 8 }, 10)
    await settle()
    expect(policy.mayWriteInline(5, { dev: 8 }, 10)).toBe(true)
  })

  it('a slow inline write sends writes to the threadpool for ten seconds', async () => {
    const { state, host } = fakeHost({ dirty: 0 })
    const policy = createInlineWritePolicy(64, host)
    const inline = async () => {
      policy.mayWriteInline(3, { dev: 1 }, 10)
      await settle()
      return policy.mayWriteInline(3, { dev: 1 }, 10)
    }
    policy.noteInlineWrite(5)
    expect(await inline()).toBe(true)
    policy.noteInlineWrite(6)
    expect(await inline()).toBe(false)
    state.now = 9_999
    expect(await inline()).toBe(false)
    state.now = 10_000
    expect(await inline()).toBe(true)
  })

  it('no answer about the dirty counts keeps the threadpool', async () => {
    const policy = createInlineWritePolicy(64, {
      now: () => 0,
      dirtyDomains: async () => undefined,
      localFileSystem: () => true,
    })
    policy.mayWriteInline(3, { dev: 1 }, 10)
    await settle()
    expect(policy.mayWriteInline(3, { dev: 1 }, 10)).toBe(false)
  })
})
