/**
 * The messages between the service and its spawner process (src/tools/bash/spawner-main.ts,
 * docs/adr/0160-a-spawner-process-forks-bash.md). JSON over the IPC channel; `spawned` carries
 * the command's stdout pipe as its handle, so the service reads the output without a relay.
 */
export type SpawnRequest = {
  type: 'spawn'
  id: number
  file: string
  args: string[]
  cwd: string
  env: Record<string, string>
}

/** What Node's spawn error carried, so the service rethrows the same text (`spawn bwrap ENOENT`). */
export type SpawnFailure = { message: string; code?: string; errno?: number; syscall?: string; path?: string }

export type SpawnerMessage =
  | { type: 'ready' }
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'spawn-error'; id: number; error: SpawnFailure }
  /** Bytes the wrapper (bwrap, setpriv, unshare) wrote to stderr, base64: rare and small. */
  | { type: 'stderr'; id: number; data: string }
  | { type: 'stderr-end'; id: number }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
