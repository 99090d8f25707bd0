import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  type Stats,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/**
 * A private copy of the few /etc entries a sandbox shows, so that bubblewrap mounts one directory
 * as /etc instead of binding each entry: every bind costs bubblewrap a mount and a read-only
 * remount, about 3 ms of a 12 ms sandbox start for the twenty-odd entries
 * (docs/adr/0384-the-sandbox-etc-is-one-prepared-directory.md). The copy holds exactly the
 * entries that exist (files, directories, symbolic links recreated as links), with their modes.
 */
type Snapshot = {
  directory: string
  /** What each copied non-link path (and each entry, link or missing) looked like at the copy. */
  seen: Map<string, string>
}

const made: string[] = []

/** What a change to `file` changes: a link can only be replaced, which changes its directory. */
function fingerprint(file: string): string {
  let stats: Stats
  try {
    stats = lstatSync(file)
  } catch {
    return 'missing'
  }
  return `${stats.mode}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`
}

/** Copies `source` to `target`; records what it saw of every path that is not a link. */
function copyEntry(source: string, target: string, seen: Map<string, string>): void {
  const stats = lstatSync(source)
  if (stats.isSymbolicLink()) {
    symlinkSync(readlinkSync(source), target)
    return
  }
  if (!stats.isFile() && !stats.isDirectory()) return
  seen.set(source, fingerprint(source))
  if (stats.isFile()) copyFileSync(source, target)
  else {
    mkdirSync(target)
    for (const child of readdirSync(source)) copyEntry(path.join(source, child), path.join(target, child), seen)
  }
  chmodSync(target, stats.mode & 0o7777)
}

function build(root: string, entries: readonly string[]): Snapshot {
  const directory = mkdtempSync(path.join(tmpdir(), `toolexec-etc-${process.pid}-`))
  const seen = new Map<string, string>()
  try {
    chmodSync(directory, 0o755)
    for (const entry of entries) {
      // The entry itself, present or not: one that appears later is copied then.
      seen.set(entry, fingerprint(entry))
      if (seen.get(entry) === 'missing') continue
      const target = path.join(directory, path.relative(root, entry))
      mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 })
      copyEntry(entry, target, seen)
    }
  } catch (error) {
    rmSync(directory, { recursive: true, force: true })
    throw error
  }
  made.push(directory)
  return { directory, seen }
}

/** Whether anything copied changed since, or the copy itself lost a file (a /tmp cleaner). */
function stale(root: string, snapshot: Snapshot): boolean {
  for (const [file, before] of snapshot.seen) {
    if (fingerprint(file) !== before) return true
    if (before !== 'missing' && fingerprint(path.join(snapshot.directory, path.relative(root, file))) === 'missing')
      return true
  }
  return false
}

/**
 * After a copy failed, the entries are bound one by one for this long before the next attempt:
 * a copy that keeps failing (an unreadable entry) is not retried, hundreds of files, every second.
 */
const COPY_RETRY_MS = 60_000

/**
 * The copies of `entries` (absolute paths under `root`, /etc in the service): `current()` is the
 * directory to mount as the sandbox's /etc, holding the entries as they are now. It checks them on
 * each call (the sandbox asks at most once a second) and copies again when one changed.
 * Undefined when the copy cannot be made (an entry the service cannot read, a full /tmp), and
 * for `retryAfterMs` after: the caller binds the entries one by one as before.
 */
export function createEtcSnapshots(entries: readonly string[], root = '/etc', retryAfterMs = COPY_RETRY_MS) {
  let snapshot: Snapshot | undefined
  let failedAt: number | undefined
  const mine: string[] = []
  return {
    /** Removes every copy made here (tests; the service's go when it exits). */
    dispose(): void {
      for (const directory of mine.splice(0)) rmSync(directory, { recursive: true, force: true })
      snapshot = undefined
    },
    current(): string | undefined {
      if (failedAt !== undefined && Math.abs(Date.now() - failedAt) < retryAfterMs) return undefined
      try {
        if (snapshot === undefined || stale(root, snapshot)) {
          snapshot = build(root, entries)
          mine.push(snapshot.directory)
        }
        failedAt = undefined
        return snapshot.directory
      } catch {
        snapshot = undefined
        failedAt = Date.now()
        return undefined
      }
    },
  }
}

// Copies replaced while the service runs stay until it exits: a sandbox (a persistent shell)
// started from one still shows it as its /etc.
process.once('exit', () => {
  for (const directory of made) rmSync(directory, { recursive: true, force: true })
})
