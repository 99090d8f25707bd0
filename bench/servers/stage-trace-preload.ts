/**
 * Loaded into the service with `--import` by bench/spawn-stages.ts: stamps (stage-stamps.ts) when
 * an HTTP request arrives (Node's own diagnostics channel) and its answer is handed to Node, each
 * message to and from the spawner, and the close of each command's stdout handle; and starts the
 * Node spawner as traced-spawner.ts. Nothing in the service changes: only Node's `fork` and
 * `spawn` are wrapped. The native spawner (started with `spawn`, docs/adr/0499) is left as it is:
 * it stamps nothing, so only the service's side of its messages is stamped.
 * SIGUSR2 writes the stamps of both processes into STAGE_TRACE_DIR (the service's alone with the
 * native spawner).
 */
import childProcess, { type ChildProcess } from 'node:child_process'
import diagnostics from 'node:diagnostics_channel'
import { ServerResponse } from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import type { Socket } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { stamp, writeStampsOnSignal } from './stage-stamps.js'

let spawner: ChildProcess | undefined
writeStampsOnSignal(path.join(process.env.STAGE_TRACE_DIR ?? '.', 'service.json'), () => spawner?.kill('SIGUSR2'))

let requests = 0
diagnostics.subscribe('http.server.request.start', () => stamp('http-request', ++requests))
// When the answer is handed to Node (its 'finish' comes only when the loop next polls).
const realEnd = ServerResponse.prototype.end
ServerResponse.prototype.end = function end(this: ServerResponse, ...args: unknown[]) {
  stamp('http-response-written', requests)
  return (realEnd as (...all: unknown[]) => ServerResponse).apply(this, args)
} as typeof realEnd

const TRACED = fileURLToPath(new URL('./traced-spawner.js', import.meta.url))
/** Stamps each message to and from the spawner, on the service's side. */
function traceChannel(child: ChildProcess, stampsToo: boolean): void {
  // Only the Node spawner keeps stamps of its own to write on SIGUSR2; the native one would die of it.
  if (stampsToo) spawner = child
  child.prependListener('message', (message: { type: string; id?: number }, handle?: Socket) => {
    stamp(`service-got-${message.type}`, message.id ?? 0)
    if (message.type === 'spawned' && handle) handle.once('close', () => stamp('service-stdout-close', message.id ?? 0))
  })
  const realSend = child.send.bind(child) as (...all: unknown[]) => boolean
  child.send = ((message: { type: string; id?: number }, ...more: unknown[]) => {
    stamp(`service-sent-${message.type}`, message.id ?? 0)
    const sent = realSend(message, ...more)
    // How long the write into the channel held the service (the spawner's wake-up, if synchronous).
    stamp(`service-sent-${message.type}-returned`, message.id ?? 0)
    return sent
  }) as typeof child.send
}

const realSpawn = childProcess.spawn
childProcess.spawn = ((file: string, ...rest: unknown[]) => {
  const child = (realSpawn as (...all: unknown[]) => ChildProcess)(file, ...rest)
  if (String(file).endsWith('toolexec-spawner')) traceChannel(child, false)
  return child
}) as typeof realSpawn

const realFork = childProcess.fork
childProcess.fork = ((modulePath: string, ...rest: unknown[]) => {
  const isSpawner = String(modulePath).endsWith('spawner-main.js')
  // With SPAWNER_PROFILE_DIR the spawner writes its own CPU profile there when it exits.
  const profile = process.env.SPAWNER_PROFILE_DIR
  const options = rest[1] as { execArgv?: string[] } | undefined
  if (isSpawner && profile && options)
    options.execArgv = [
      ...(options.execArgv ?? []),
      '--cpu-prof',
      '--cpu-prof-interval',
      '100',
      '--cpu-prof-dir',
      profile,
    ]
  const child = (realFork as (...all: unknown[]) => ChildProcess)(isSpawner ? TRACED : modulePath, ...rest)
  if (isSpawner) traceChannel(child, true)
  return child
}) as typeof realFork
syncBuiltinESMExports()
