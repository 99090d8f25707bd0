import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
  write,
  writeFileSync,
  writeSync,
} from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { crawlMatches } from '../../src/tools/glob/crawl-matches.js'
import { SYNC_IO_LIMIT } from '../../src/tools/shared/descriptor-io.js'
import { lstatMtimes } from '../../src/tools/shared/lstat-mtimes.js'
import { createInlineWritePolicy } from '../../src/tools/shared/write-pressure.js'
import { type Figure, ratioFigure } from './report.js'
import { summarise } from './serial-latency.js'

/**
 * Glob's crawl of the bench tree, the tool's own (its pattern compiled once, docs/adr/0560), newest
 * first by lstat, its times read as the tool reads them (docs/adr/0586-bare-glob-rows-stamp-as-the-tool-does.md).
 */
async function crawlNewestFirst(cwd: string) {
  const { files } = await crawlMatches('src/**/*.ts', cwd)
  const times = lstatMtimes(files)
  return files.map((file, index) => ({ file, mtimeMs: times[index] as number })).sort((a, b) => b.mtimeMs - a.mtimeMs)
}

/**
 * The job each file tool does, done bare from this process with the same calls a tool needs and
 * nothing around them (no run, no HTTP, no confinement): what the tool cannot do without
 * (docs/adr/0464-file-tools-have-an-own-work-floor.md). Glob crawls synchronously with the tool's
 * own crawl, as the tool crawls a small tree (docs/adr/0465-small-crawls-run-synchronously.md).
 */
export function fileToolsOwnWork(cwd: string): Record<string, () => Promise<void>> {
  const readPath = path.join(cwd, 'src/file-1.ts')
  // A file of its own: a bare write to the Edit call's file would fail the call's read-before-write check.
  const editPath = path.join(cwd, 'edit-bare.txt')
  writeFileSync(editPath, 'first alpha line\nsecond line\n')
  return {
    Read: async () => {
      const fd = openSync(readPath, 'r')
      const size = fstatSync(fd).size
      const buffer = Buffer.allocUnsafe(size + 1)
      const length = readSync(fd, buffer, 0, size + 1, 0)
      closeSync(fd)
      const lines = buffer.subarray(0, length).toString('utf8').split('\n')
      lines.map((line, index) => `${String(index + 1).padStart(6)}\t${line}`).join('\n')
    },
    Glob: async () => {
      await crawlNewestFirst(cwd)
    },
    // Replaces a word with one of its own length: the file's content stays what the Edit call expects.
    Edit: async () => {
      const fd = openSync(editPath, 'r+')
      const size = fstatSync(fd).size
      const buffer = Buffer.allocUnsafe(size + 1)
      const text = buffer.subarray(0, readSync(fd, buffer, 0, size + 1, 0)).toString('utf8')
      const at = text.indexOf('line')
      writeSync(fd, Buffer.from(`${text.slice(0, at)}line${text.slice(at + 4)}`), 0)
      closeSync(fd)
      statSync(editPath)
    },
  }
}

/** Linux's O_PATH, as src/paths/open-inside.ts names a checked file before it opens it. */
const O_PATH = 0o10000000

/** The checked open of an existing file (docs/adr/0468): named with O_PATH, verified by the kernel's name, reopened. */
function checkedOpen(realPath: string, flags: number): number {
  const named = openSync(realPath, O_PATH | constants.O_NOFOLLOW)
  try {
    if (readlinkSync(`/proc/self/fd/${named}`) !== realPath) throw new Error(`${realPath} moved`)
    return openSync(`/proc/self/fd/${named}`, flags | constants.O_NONBLOCK)
  } finally {
    closeSync(named)
  }
}

/**
 * Each file tool's own work (as fileToolsOwnWork) plus the system calls its contracts require,
 * done bare from this process in the order the service makes them: the workspace root's, the
 * cwd's and the path's realpath (the working directories checked per call, docs/adr/0090; the
 * path confined, 0091), validation's stat and the permission decision's (docs/adr/0466), the
 * checked open (0468); Edit also its validation's read of the file (0386), the call's re-check of
 * the file's state and the read-before-write record's stat, and its write (inline while the
 * kernel has no dirty pressure, docs/adr/0545, else through the threadpool, 0481). Against a no-op run, the nearest figure this design allows
 * (docs/adr/0469-file-tools-print-their-floor-at-this-design.md).
 */
export function fileToolsDesignWork(cwd: string): Record<string, () => Promise<void>> {
  const root = path.dirname(cwd)
  const readPath = path.join(cwd, 'src/file-1.ts')
  const editPath = path.join(cwd, 'edit-design.txt')
  writeFileSync(editPath, 'first alpha line\nsecond line\n')
  const confined = (target: string) => {
    realpathSync.native(root)
    realpathSync.native(cwd)
    return realpathSync.native(target)
  }
  const readSized = (fd: number, size: number) => {
    const buffer = Buffer.allocUnsafe(size + 1)
    return buffer.subarray(0, readSync(fd, buffer, 0, size + 1, 0)).toString('utf8')
  }
  const readWhole = (fd: number) => readSized(fd, fstatSync(fd).size)
  const writeAt = promisify(write)
  const inlineWrites = createInlineWritePolicy(SYNC_IO_LIMIT)
  return {
    Read: async () => {
      const real = confined(readPath)
      statSync(real)
      statSync(real)
      const fd = checkedOpen(real, constants.O_RDONLY)
      const text = readWhole(fd)
      closeSync(fd)
      text
        .split('\n')
        .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
        .join('\n')
    },
    Glob: async () => {
      const real = confined(cwd)
      statSync(real)
      await crawlNewestFirst(real)
    },
    // Replaces a word with one of its own length, as fileToolsOwnWork does.
    // As the service since docs/adr/0525: the cwd checked (0090, the root kept by 0523), the file
    // named once (its kernel name and fstat), validation's read through that name, the call's
    // reopen of it for writing, a re-read, the write (inline while the kernel has no dirty pressure,
    // 0545, else through the threadpool, 0481), and the record
    // from the descriptor's fstat (0526).
    Edit: async () => {
      realpathSync.native(cwd)
      const named = openSync(editPath, O_PATH)
      // The confinement's test of the kernel's name (0524: a string test).
      if (!readlinkSync(`/proc/self/fd/${named}`).startsWith(`${cwd}/`)) throw new Error(`${editPath} moved`)
      const size = fstatSync(named).size
      const check = openSync(`/proc/self/fd/${named}`, constants.O_RDONLY | constants.O_NONBLOCK)
      readSized(check, size).indexOf('line')
      closeSync(check)
      const fd = openSync(`/proc/self/fd/${named}`, constants.O_RDWR | constants.O_NONBLOCK)
      closeSync(named)
      const text = readWhole(fd)
      const at = text.indexOf('line')
      const bytes = Buffer.from(`${text.slice(0, at)}line${text.slice(at + 4)}`)
      // Inline while the kernel has no dirty pressure, as the service decides (docs/adr/0545).
      if (inlineWrites.mayWriteInline(fd, fstatSync(fd), bytes.length)) writeSync(fd, bytes, 0, bytes.length, 0)
      else await writeAt(fd, bytes, 0, bytes.length, 0)
      fstatSync(fd)
      closeSync(fd)
    },
  }
}

/**
 * The least work any crawler needs for Glob's answer on the bench tree (`src/**\/*.ts`, newest
 * first): one `readdir` per directory crawled, from the pattern's fixed part down, one `lstat` per
 * match for its time, and the sort; no matcher, no library. Against a no-op run it says whether
 * the goal is reachable at all by a faster crawl (docs/adr/0527-glob-has-a-least-work-row.md).
 */
export function globLeastWork(cwd: string): () => Promise<void> {
  const crawl = (directory: string, found: string[]) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const entryPath = `${directory}/${entry.name}`
      if (entry.isDirectory()) crawl(entryPath, found)
      else if (entry.name.endsWith('.ts')) found.push(entryPath)
    }
    return found
  }
  return async () => {
    const files = crawl(path.join(cwd, 'src'), [])
    // Each lstat as cheaply as the service can make it: one lstat(2) and no Stats object (docs/adr/0586-bare-glob-rows-stamp-as-the-tool-does.md).
    const times = lstatMtimes(files)
    files.map((file, index) => ({ file, mtimeMs: times[index] as number })).sort((a, b) => b.mtimeMs - a.mtimeMs)
  }
}

/** A no-op run plus the least work any crawler needs for the answer, done bare (docs/adr/0527). */
export function leastWorkFigure(name: string, noop: number[], leastWork: number[]): Figure {
  const noopP50 = summarise(noop).p50
  const least = summarise(leastWork)
  return ratioFigure({
    name: `${name}: the least work a newest-first answer needs, a no-op run plus one readdir per directory crawled and one lstat per match done bare, p50`,
    unit: 'ms',
    value: noopP50 + least.p50,
    baselineName: 'no-op run (ToolSearch) in the same session, p50',
    baseline: noopP50,
    details: { leastWorkP50Ms: least.p50, leastWorkRuns: least.requests },
  })
}

/** A no-op run plus the tool's work and its contracts' checks done bare: the nearest figure at this design. */
export function nearestAtThisDesign(name: string, noop: number[], designWork: number[]): Figure {
  const noopP50 = summarise(noop).p50
  const work = summarise(designWork)
  return ratioFigure({
    name: `${name}: nearest at this design, a no-op run plus the tool's work and its contracts' checks done bare, p50`,
    unit: 'ms',
    value: noopP50 + work.p50,
    baselineName: 'no-op run (ToolSearch) in the same session, p50',
    baseline: noopP50,
    details: { designWorkP50Ms: work.p50, designWorkRuns: work.requests },
  })
}

export function smallCallFigure(name: string, noop: number[], small: number[]): Figure {
  return ratioFigure({
    name: `${name} of a one-line file: p50, one client in flight (the call without its result's size)`,
    unit: 'ms',
    value: summarise(small).p50,
    baselineName: 'no-op run (ToolSearch) in the same session, p50',
    baseline: summarise(noop).p50,
    details: { p99Ms: summarise(small).p99, calls: small.length },
  })
}

/** A no-op run plus the tool's own work done bare: the figure the tool's call could reach at best. */
export function nearestAchievable(name: string, noop: number[], ownWork: number[]): Figure {
  const noopP50 = summarise(noop).p50
  const own = summarise(ownWork)
  return ratioFigure({
    name: `${name}: nearest achievable, a no-op run plus the tool's own work done bare, p50`,
    unit: 'ms',
    value: noopP50 + own.p50,
    baselineName: 'no-op run (ToolSearch) in the same session, p50',
    baseline: noopP50,
    details: { ownWorkP50Ms: own.p50, ownWorkRuns: own.requests },
  })
}
