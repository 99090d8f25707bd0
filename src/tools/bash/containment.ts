import { spawnSync } from 'node:child_process'

/**
 * What holds a Bash command's processes together so that all of them end with the call:
 * `bwrap` (its own PID namespace), `pid-namespace` (no bubblewrap, but `unshare` gives the command
 * a PID namespace that dies with the call and with the service), or `process-group` (only the
 * group is killed: a command that calls `setsid` can escape). docs/adr/0123-containment-without-bubblewrap.md.
 */
export type Containment = 'bwrap' | 'pid-namespace' | 'process-group'

/**
 * `setpriv --pdeathsig KILL` makes `unshare` die with the service (even a SIGKILL of it);
 * `--kill-child` kills the namespace's first process when `unshare` dies, and the kernel then
 * kills every process of the namespace, `setsid` ones included. `--mount-proc` shows the
 * command only its own processes.
 */
const PID_NAMESPACE_PREFIX = [
  'setpriv',
  '--pdeathsig',
  'KILL',
  'unshare',
  '--pid',
  '--fork',
  '--kill-child',
  '--mount-proc',
  '--',
] as const

/**
 * The namespace's first process: a small shell, so that the command's `bash` is not pid 1 (which
 * ignores signals from inside it has no handler for: `kill $$` would do nothing). The service
 * ends the namespace with a SIGKILL to `unshare` (docs/adr/0461-the-pid-namespace-ends-with-unshare.md);
 * a SIGTERM to this shell from inside is passed to every process of the namespace (`kill -1`
 * reaches `setsid` ones too) and ends it.
 * Output merging is the same as the plain shell's (run-shell-command.ts), and so is the byte on
 * fd 3 that ends the start (docs/adr/0301-process-starts-are-paced.md). It is POSIX sh, run by
 * WRAPPER_SHELL like the merging shell (docs/adr/0290-wrapper-shells-are-sh.md).
 * Where the native spawner can, it is this init itself, in C, and this argv is not used
 * (native/pid-namespace.c, docs/adr/0555-the-native-spawner-is-the-pid-namespace-init.md).
 */
const NAMESPACE_INIT = 'trap "kill -TERM -1 2>/dev/null; exit 143" TERM; printf . >&3; bash -c "$1" 2>&1 3>&- & wait $!'

/**
 * The shell that runs the wrappers around the command (the stderr merge, the namespace's first
 * process): `/bin/sh`, which starts in about a third of bash's time. The command itself always
 * runs in `bash -c`, with `bash` as its `$0`.
 */
export const WRAPPER_SHELL = '/bin/sh'

/** The argv of `bash -c COMMAND` (stderr merged) under `containment`; bwrap builds its own. */
export function containedShellArgv(containment: Containment, mergeScript: string, command: string): string[] {
  if (containment === 'pid-namespace')
    return [...PID_NAMESPACE_PREFIX, WRAPPER_SHELL, '-c', NAMESPACE_INIT, 'sh', command]
  return [WRAPPER_SHELL, '-c', mergeScript, 'sh', command]
}

/**
 * Probes, once at start, whether an unsandboxed command can get its own PID namespace here (it
 * needs root or a user namespace that allows it). A probe that fails leaves process groups.
 */
export function detectContainment(sandbox: 'bwrap' | 'off'): { containment: Containment; reason: string } {
  if (sandbox === 'bwrap') return { containment: 'bwrap', reason: 'bubblewrap PID namespace' }
  // The host does not change while we run: one probe per process (tests build many apps).
  probed ??= probePidNamespace()
  return probed
}

let probed: { containment: Containment; reason: string } | undefined

function probePidNamespace(): { containment: Containment; reason: string } {
  const probe = spawnSync(PID_NAMESPACE_PREFIX[0], [...PID_NAMESPACE_PREFIX.slice(1), 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  })
  if (!probe.error && probe.status === 0) {
    return { containment: 'pid-namespace', reason: 'unshare --pid works: each command gets a PID namespace' }
  }
  const why = probe.error ? probe.error.message : probe.stderr.trim() || `exit ${probe.status ?? probe.signal}`
  return {
    containment: 'process-group',
    reason: `unshare --pid is not usable (${why}): only the command's process group is killed; a setsid child can outlive the call`,
  }
}
