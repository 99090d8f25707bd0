/**
 * The spawner process (src/tools/bash/spawner-main.ts) with stage stamps (stage-stamps.ts): when a
 * spawn request arrives, when `spawn()` is called and returns, the command's exit and stderr close
 * as this process sees them, and each message it sends. The spawner itself is imported unchanged;
 * only Node's `spawn` and `process.send` are wrapped. Started in place of spawner-main.js by
 * stage-trace-preload.ts (bench/spawn-stages.ts).
 */
import childProcess, { type ChildProcess } from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'
import path from 'node:path'
import { stamp, writeStampsOnSignal } from './stage-stamps.js'

writeStampsOnSignal(path.join(process.env.STAGE_TRACE_DIR ?? '.', 'spawner.json'))

let current = 0
process.on('message', (message: { type?: string; id?: number }) => {
  if (message.type !== 'spawn') return
  current = message.id ?? 0
  stamp('spawner-received', current)
})

const realSpawn = childProcess.spawn
childProcess.spawn = ((...args: Parameters<typeof realSpawn>) => {
  const id = current
  stamp('spawner-spawn-call', id)
  const child: ChildProcess = realSpawn(...args)
  stamp('spawner-spawn-returned', id)
  child.once('exit', () => stamp('spawner-exit-event', id))
  child.stderr?.once('close', () => stamp('spawner-stderr-close', id))
  return child
}) as typeof realSpawn
syncBuiltinESMExports()

const realSend = process.send?.bind(process)
if (realSend) {
  process.send = ((message: { type: string; id?: number }, ...rest: unknown[]) => {
    stamp(`spawner-sent-${message.type}`, message.id ?? 0)
    return (realSend as (...all: unknown[]) => boolean)(message, ...rest)
  }) as NonNullable<typeof process.send>
}

await import('../../src/tools/bash/spawner-main.js')
