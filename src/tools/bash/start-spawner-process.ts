import { type ChildProcess, fork, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * How a spawner process is started (docs/adr/0160-a-spawner-process-forks-bash.md): a Node
 * spawner script is forked, the native spawner (docs/adr/0499-the-native-spawner.md) spawned;
 * either way with the IPC channel the protocol (spawner-protocol.ts) runs on.
 */

// Compiled, this file sits beside spawner-main.js; run from source (tests, tsx) the spawner is
// the .ts file and needs tsx's loader, resolved from the repository root.
const SOURCE = import.meta.url.endsWith('.ts')
export const NODE_SPAWNER = fileURLToPath(new URL(`./spawner-main.${SOURCE ? 'ts' : 'js'}`, import.meta.url))
const REPOSITORY = fileURLToPath(new URL('../../..', import.meta.url))
// A small heap: the spawner holds a few objects per running command, and each fork copies its page tables.
const SPAWNER_FLAGS = ['--max-old-space-size=32', '--max-semi-space-size=1']

/** A Node spawner script (forked), or a program speaking the same protocol over the IPC channel (the native spawner). */
export function startSpawner(main: string): ChildProcess {
  const { NODE_OPTIONS: _ignored, ...env } = process.env
  const options = {
    cwd: REPOSITORY,
    env,
    // Its own session: a terminal's Ctrl-C reaches the service, which drains, not the spawner.
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'] as ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'json' as const,
  }
  if (!/\.[cm]?[jt]s$/.test(main)) return spawn(main, [], options)
  return fork(main, [], {
    ...options,
    execArgv: [...(main.endsWith('.ts') ? ['--import', 'tsx'] : []), ...SPAWNER_FLAGS],
  })
}
