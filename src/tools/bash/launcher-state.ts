import type { ProcessPriority } from './process-priority.js'
import type { SpawnerChoice, SpawnerKind } from './spawner-choice.js'
import type { StartPaceState } from './start-pace.js'

/**
 * Which process forks the commands: the spawner (its pid, which one, and why not the native one
 * when that was wanted: docs/adr/0501-choosing-the-spawner.md), or the service itself and why.
 */
export type LauncherState =
  | { mode: 'spawner'; pid: number; spawner: SpawnerKind; reason?: string }
  | { mode: 'in-process'; reason: string }

/** A change after start: the spawner was replaced, or commands fall back to in-process spawns. */
export type LauncherChange = { state: LauncherState; event: 'restarted' | 'fallback'; reason: string }

/**
 * How the commands share the host with the service (TOOLEXEC_PROCESS_NICE, TOOLEXEC_SPAWNER, and
 * TOOLEXEC_MAX_STARTING_PROCESSES: a number pins the start limit, none lets it adapt, docs/adr/0506).
 */
export type ProcessSettings = { nice: number; maxStarting?: number | undefined; spawner?: SpawnerChoice | undefined }

/** What is in force for the processes the service starts, for /readyz and the start log. */
export type ProcessesState = ProcessPriority & {
  /** The kernel's autogroup scheduling gives each session its own CPU share (process-priority.ts). */
  autogroup: boolean
  /**
   * Where each command runs: a process group of its own in the spawner's session, sharing its CPU
   * share (the native spawner without a terminal, docs/adr/0576), or a session of its own.
   */
  commandGroups: 'process-group' | 'session'
  /** Under autogroup, the nice of the spawner's session's CPU share once set (docs/adr/0578); null otherwise. */
  autogroupNice: number | null
  /** Which process starts them: the native spawner, the Node one, or the service itself (docs/adr/0501). */
  spawner: SpawnerKind | 'in-process'
  /** The start limit in force now; `pacing` says whether it is pinned or adapts between its floor and ceiling. */
  maxStarting: number
  starting: number
  queued: number
} & StartPaceState
