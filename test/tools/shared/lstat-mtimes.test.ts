// Pins docs/adr/0585: the addon's times are `lstatSync(file).mtimeMs` to the bit, a link's own,
// 0 for what lstat cannot see, and Node answers what the addon cannot say; newestFirst's order
// is unchanged. Run against the addon the global setup builds, and without it.
import { lstatSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { lutimes, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newestFirst } from '../../../src/tools/shared/file-stats.js'
import { lstatMtimes, type MtimesAddon, mtimesAddon } from '../../../src/tools/shared/lstat-mtimes.js'

/** What the service answered before the addon: each file's own time by `lstatSync`, 0 when it fails. */
function byNode(file: string): number {
  try {
    return lstatSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0
  } catch {
    return 0
  }
}

let directory: string
let files: string[]

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'lstat-mtimes-'))
  const at = (name: string) => path.join(directory, name)
  mkdirSync(at('dir'))
  for (const [index, name] of ['a.ts', 'B.ts', 'é ü 中文 😀.ts', 'with space', 'dir/inner.ts'].entries()) {
    writeFileSync(at(name), name)
    // Times with sub-millisecond parts, set apart: nanoseconds the conversion must keep as Node does.
    const seconds = 1_700_000_000 + index * 7 + 0.123456789 * (index + 1)
    utimesSync(at(name), seconds, seconds)
  }
  writeFileSync(at('target.ts'), 'target')
  symlinkSync(at('target.ts'), at('link.ts'))
  symlinkSync(at('gone.ts'), at('dangling.ts'))
  // A link's own time, far from its target's: lstat, not stat.
  await lutimes(at('link.ts'), 1_600_000_000.5, 1_600_000_000.5)
  await lutimes(at('dangling.ts'), 1_650_000_000.25, 1_650_000_000.25)
  files = [
    ...['a.ts', 'B.ts', 'é ü 中文 😀.ts', 'with space', 'dir/inner.ts', 'dir', 'target.ts'].map(at),
    at('link.ts'),
    at('dangling.ts'),
    at('missing.ts'),
    at('a.ts/under-a-file'),
    // Longer than PATH_MAX: the addon leaves it to Node, which fails it as lstat would.
    `${directory}/${'x'.repeat(5000)}`,
  ]
})

afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

describe.skipIf(mtimesAddon === undefined)('the lstat-mtimes addon', () => {
  it('gives every time lstatSync gives, to the bit, -1 where lstat fails and NaN for a name too long', () => {
    const addon = mtimesAddon as MtimesAddon
    const times = Array.from(addon.lstatMtimes(files))
    const expected = files.map(byNode)
    expect(times.slice(0, 9)).toEqual(expected.slice(0, 9))
    expect(times.slice(9, 11)).toEqual([-1, -1])
    expect(Number.isNaN(times[11])).toBe(true)
    expect(addon.lstatMtimes([])).toHaveLength(0)
  })

  it('leaves a name with a NUL inside to Node, which refuses it: lstat(2) would see a shorter path', () => {
    const addon = mtimesAddon as MtimesAddon
    const truncated = `${path.join(directory, 'a.ts')}\u0000/more`
    expect(Number.isNaN(addon.lstatMtimes([truncated])[0])).toBe(true)
    expect(lstatMtimes([truncated])).toEqual([0])
  })

  it('refuses anything but an array', () => {
    expect(() => (mtimesAddon as unknown as { lstatMtimes: (value: unknown) => unknown }).lstatMtimes('a')).toThrow(
      TypeError,
    )
  })
})

describe('lstatMtimes', () => {
  it('gives lstatSync’s times, 0 for what it cannot see, with the addon and without it', () => {
    const expected = files.map(byNode)
    expect(expected[7]).toBe(1_600_000_000_500)
    expect(expected.slice(9)).toEqual([0, 0, 0])
    expect(lstatMtimes(files)).toEqual(expected)
    // null, not undefined: undefined would take the default, the addon again.
    expect(lstatMtimes(files, null)).toEqual(expected)
  })

  it('asks Node for a name the addon cannot say', () => {
    const said = { lstatMtimes: (paths: readonly string[]) => Float64Array.from(paths, () => Number.NaN) }
    expect(lstatMtimes(files, said)).toEqual(files.map(byNode))
  })

  it('keeps newestFirst’s order: newest first, ties by name, a link by its own time, the missing last', async () => {
    const order = await newestFirst(files)
    const expected = files
      .map((file) => ({ file, mtimeMs: byNode(file) }))
      .sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file))
      .map((entry) => entry.file)
    expect(order).toEqual(expected)
    expect(order.indexOf(path.join(directory, 'link.ts'))).toBeGreaterThan(order.indexOf(path.join(directory, 'a.ts')))
  })
})
