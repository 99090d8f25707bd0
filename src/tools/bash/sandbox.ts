import { spawnSync } from 'node:child_process'
import { lstatSync, readlinkSync } from 'node:fs'
import type { SandboxMode } from './sandbox-mode.js'

export type SandboxDetection = { sandbox: 'bwrap' | 'off'; reason: string }

export const BWRAP_COMMAND = 'bwrap'

// What programs need to run: mounted read-only. Everything else (homes, other tenants'
// workspaces and blob directories, the service's own files) is simply absent in the sandbox.
const SYSTEM_DIRECTORIES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt']

function probeArguments(): string[] {
  return ['--die-with-parent', '--new-session', '--unshare-all', '--ro-bind', '/', '/', 'true']
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

function systemMounts(): string[] {
  const mounts: string[] = []
  for (const directory of SYSTEM_DIRECTORIES) {
    const stats = (() => {
      try {
        return lstatSync(directory)
      } catch {
        return null
      }
    })()
    if (stats?.isSymbolicLink()) mounts.push('--symlink', readlinkSync(directory), directory)
    else if (stats?.isDirectory()) mounts.push('--ro-bind', directory, directory)
  }
  return mounts
}

/**
 * bubblewrap arguments (before the command): a read-only system, a private /tmp and /dev and
 * /proc, no network, new namespaces (pid included: when bwrap dies every process inside dies,
 * `--die-with-parent` makes it die with us), and only this tenant's directories mounted.
 */
export function bubblewrapArguments(layout: SandboxLayout): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...systemMounts(),
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
