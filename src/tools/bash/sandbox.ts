import { spawnSync } from 'node:child_process'
import { lstatSync, readlinkSync } from 'node:fs'
import { createEtcSnapshots } from './etc-snapshot.js'
import type { SandboxMode } from './sandbox-mode.js'

export type SandboxDetection = { sandbox: 'bwrap' | 'off'; reason: string }

export const BWRAP_COMMAND = 'bwrap'

// What programs need to run: mounted read-only. Everything else (homes, other tenants'
// workspaces and blob directories, the service's own files) is simply absent in the sandbox.
const SYSTEM_DIRECTORIES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt']

// Of /etc, only what common programs read (the loader, users and groups by name, time zone, CA
// certificates, alternatives): /etc/shadow, private keys and tool credentials (npmrc, pip.conf)
// stay outside. docs/adr/0102-sandbox-user-and-etc.md.
export const ETC_ENTRIES = [
  'alternatives',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'group',
  'host.conf',
  'hosts',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'magic',
  'magic.mime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'pki/ca-trust',
  'pki/tls/certs',
  'protocols',
  'services',
  'ssl/certs',
  'ssl/openssl.cnf',
  'terminfo',
  'timezone',
].map((entry) => `/etc/${entry}`)

/** Commands run as `nobody`, with no capabilities: never root inside the sandbox. */
const SANDBOX_UID = 65534
const SANDBOX_GID = 65534

// The user namespace and ids Bash runs with, so the probe fails where they cannot work.
const IDENTITY = ['--unshare-user', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_GID), '--cap-drop', 'ALL']

function probeArguments(): string[] {
  return ['--die-with-parent', '--unshare-all', ...IDENTITY, '--ro-bind', '/', '/', 'true']
}

/**
 * Decides whether Bash runs inside bubblewrap by really starting one (`bwrap … true`), with
 * the namespaces Bash will use. `auto` falls back to `off` with the reason; an explicit `bwrap`
 * that does not work throws, so a misconfigured host fails at start rather than running bare.
 */
export function detectSandbox(mode: SandboxMode, command: string = BWRAP_COMMAND): SandboxDetection {
  if (mode === 'off') return { sandbox: 'off', reason: 'TOOLEXEC_SANDBOX=off' }
  const probe = spawnSync(command, probeArguments(), { encoding: 'utf8', timeout: 10_000 })
  let failure: string | undefined
  if (probe.error)
    failure =
      (probe.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${command} is not installed` : probe.error.message
  else if (probe.status !== 0)
    failure = `${command} failed (exit ${probe.status ?? probe.signal}): ${probe.stderr.trim() || 'no output'}`
  if (failure === undefined) return { sandbox: 'bwrap', reason: `${command} works: Bash runs sandboxed` }
  if (mode === 'bwrap') throw new Error(`TOOLEXEC_SANDBOX=bwrap but the sandbox is not usable: ${failure}`)
  return { sandbox: 'off', reason: `bubblewrap is not usable (${failure}): Bash runs without a sandbox` }
}

export type SandboxLayout = {
  cwd: string
  /** Mounted read-write at the same path. */
  writableDirectories: readonly string[]
  /** Mounted read-only at the same path (the tenant's blob directory). */
  readOnlyDirectories: readonly string[]
}

/** Each existing path mounted read-only, a symbolic link recreated as one (`/bin` → `usr/bin`). */
function readOnlyMounts(paths: readonly string[]): string[] {
  const mounts: string[] = []
  for (const entry of paths) {
    const stats = (() => {
      try {
        return lstatSync(entry)
      } catch {
        return null
      }
    })()
    if (stats?.isSymbolicLink()) mounts.push('--symlink', readlinkSync(entry), entry)
    else if (stats?.isDirectory() || stats?.isFile()) mounts.push('--ro-bind', entry, entry)
  }
  return mounts
}

/**
 * How long the system mounts are reused: 34 synchronous lstat calls per sandboxed command cost the
 * event loop about 0.25 ms each call, 64 ms of one 256-command burst in the profile; a system
 * directory that appears or goes (a package installed) shows within a second, from the command
 * after the one that finds them old (docs/adr/0302-system-mounts-reused-for-a-second.md, 0488).
 */
const SYSTEM_MOUNTS_TTL_MS = 1_000
let systemMounts: { at: number; directories: string[]; etc: string[] } | undefined
const etcSnapshots = createEtcSnapshots(ETC_ENTRIES)

function computeSystemMounts(): { at: number; directories: string[]; etc: string[] } {
  // One prepared /etc (docs/adr/0384-the-sandbox-etc-is-one-prepared-directory.md); the
  // entries bound one by one when it cannot be made.
  const snapshot = etcSnapshots.current()
  const etc = snapshot ? ['--ro-bind', snapshot, '/etc'] : ['--dir', '/etc', ...readOnlyMounts(ETC_ENTRIES)]
  return { at: Date.now(), directories: readOnlyMounts(SYSTEM_DIRECTORIES), etc }
}

let refreshScheduled = false

function currentSystemMounts(): { directories: string[]; etc: string[] } {
  if (systemMounts === undefined) systemMounts = computeSystemMounts()
  const now = Date.now()
  if (!refreshScheduled && (now - systemMounts.at >= SYSTEM_MOUNTS_TTL_MS || now < systemMounts.at)) {
    // Checked again after this call's start, not before it: the check (hundreds of `lstat`s of
    // /etc's copy) cost a call 0.5–0.8 ms, and a session whose calls come seconds apart paid it
    // on every one (docs/adr/0488-the-system-mounts-are-checked-after-the-call-that-finds-them-old.md).
    refreshScheduled = true
    setImmediate(() => {
      refreshScheduled = false
      systemMounts = computeSystemMounts()
    })
  }
  return systemMounts
}

/**
 * Makes the system mounts and the prepared /etc now: the first copy is hundreds of synchronous
 * file operations (about 0.5 s on a loaded 2-core host), which belong to the start, not to the
 * event loop of the first sandboxed call (docs/adr/0387-the-sandbox-etc-is-prepared-at-start.md).
 */
export function prepareSystemMounts(): void {
  currentSystemMounts()
}

/**
 * bubblewrap arguments (before the command): a read-only system and the few /etc files programs
 * need, a private /tmp and /dev and /proc, no network, new namespaces (pid included: when bwrap
 * dies every process inside dies, `--die-with-parent` makes it die with us), user `nobody` with
 * no capabilities, and only this tenant's directories mounted.
 *
 * The user namespace maps `nobody` to the service's own user outside, so files the command
 * writes in the workspace belong to the service as before (docs/adr/0102-sandbox-user-and-etc.md).
 */
export function bubblewrapArguments(layout: SandboxLayout): string[] {
  const system = currentSystemMounts()
  // No `--new-session`: `bwrap` is always started in a process group or session of its own with no
  // controlling terminal (the spawner's session, or its own), and nothing in the sandbox can
  // acquire one; a session per sandbox only gave each its own CPU share under autogroup
  // (docs/adr/0577-bubblewrap-runs-without-a-session-of-its-own.md).
  return [
    '--die-with-parent',
    '--unshare-all',
    ...IDENTITY,
    ...system.directories,
    ...system.etc,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...layout.writableDirectories.flatMap((directory) => ['--bind', directory, directory]),
    // Read-only last: it wins should a blob directory lie inside a working directory.
    ...layout.readOnlyDirectories.flatMap((directory) => ['--ro-bind', directory, directory]),
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--chdir',
    layout.cwd,
    '--',
  ]
}
