/**
 * Timestamps of the stages of a Bash or Grep call, on CLOCK_MONOTONIC (`process.hrtime`), which
 * every process of the host shares: the service's, its spawner's and the bench's stamps line up.
 * Kept in memory and written as JSON on SIGUSR2, so that no file is written while a call runs.
 * Used by bench/spawn-stages.ts through stage-trace-preload.ts and traced-spawner.ts.
 */
import { renameSync, writeFileSync } from 'node:fs'

/** [stage, the spawner's request id (0 when none), µs on CLOCK_MONOTONIC]. */
export type Stamp = [stage: string, id: number, microseconds: number]

const stamps: Stamp[] = []

export function stamp(stage: string, id: number): void {
  stamps.push([stage, id, Number(process.hrtime.bigint()) / 1000])
}

/** On SIGUSR2 the stamps so far are written to `file` (then `after` runs, e.g. to pass the signal on). */
export function writeStampsOnSignal(file: string, after?: () => void): void {
  process.on('SIGUSR2', () => {
    // Renamed into place: the reader sees the whole file or none.
    writeFileSync(`${file}.part`, JSON.stringify(stamps))
    renameSync(`${file}.part`, file)
    after?.()
  })
}
