import type { Socket } from 'node:net'
import { PassThrough } from 'node:stream'
import { deferred } from '../../async/deferred.js'
import { type LaunchedCommand, SpawnerStoppedError } from './launched-command.js'
import { exitCodeFrom } from './sandbox-status.js'
import type { InputRequest, SignalRequest, SpawnerMessage, SpawnFailure, SpawnRequest } from './spawner-protocol.js'
import { NODE_SPAWNER, startSpawner } from './start-spawner-process.js'

/** How long the spawner may take to start (a Node process, under load). */
const READY_TIMEOUT_MS = 15_000
/** A spawn takes milliseconds; a spawner that answers none for this long is stuck and is replaced. */
const LAUNCH_TIMEOUT_MS = 30_000

/** One spawner process and the commands it started (launch-command.ts restarts it). */
export type SpawnerConnection = {
  readonly pid: number
  /** What its `ready` said it can do beyond the base protocol (spawner-protocol.ts). */
  readonly features: ReadonlySet<string>
  launch(
    file: string,
    args: string[],
    options: {
      cwd: string
      env: Record<string, string>
      announcesStart?: boolean | undefined
      takesInput?: boolean | undefined
      sameSession?: boolean | undefined
      reportsStatus?: boolean | undefined
      mergesStderr?: boolean | undefined
      unblocksStart?: boolean | undefined
      pidNamespace?: boolean | undefined
    },
  ): Promise<LaunchedCommand>
  /** Resolves, with what happened, once the spawner process is gone. */
  readonly stopped: Promise<string>
  /** SIGKILL to the spawner: its commands end with SpawnerStoppedError. */
  kill(): void
}

type Pending = {
  launched?: ReturnType<typeof deferred<LaunchedCommand>> | undefined
  timer?: NodeJS.Timeout
  exit: ReturnType<typeof deferred<[number | null, NodeJS.Signals | null]>>
  started: ReturnType<typeof deferred<void>>
  stderr: PassThrough
  stdout?: Socket | undefined
  /** A `takesInput` command's stdin, once its handle came (docs/adr/0471). */
  stdin?: Socket | undefined
  /** A `reportsStatus` command's stderr pipe, piped into `stderr` (docs/adr/0473). */
  stderrPipe?: Socket | undefined
  exitSeen: boolean
  takesInput: boolean
}

/**
 * At the leader's exit, streams nobody reads any more (a reader that failed unpiped them) are
 * drained, so that they reach their end and close; Node does the same for a child's own stdio.
 */
function drain(entry: Pending): void {
  for (const stream of [entry.stdout, entry.stderr]) {
    if (stream?.readable && stream.listenerCount('readable') === 0) stream.resume()
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

function spawnError(failure: SpawnFailure): Error {
  const { message, ...fields } = failure
  return Object.assign(new Error(message), fields)
}

/** Starts a spawner process and resolves once it is ready; rejects when it cannot start. */
export async function connectSpawner(main = NODE_SPAWNER): Promise<SpawnerConnection> {
  const child = startSpawner(main)
  const stopped = deferred<string>()
  child.once('exit', (code, signal) => stopped.resolve(signal ? `signal ${signal}` : `exit code ${code}`))
  child.once('error', (error) => {
    stopped.resolve(error.message)
    child.kill('SIGKILL')
  })
  const ready = new Promise<ReadonlySet<string>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS)
    child.once('message', (message: SpawnerMessage) => {
      clearTimeout(timer)
      resolve(new Set(message.type === 'ready' ? (message.features ?? []) : []))
    })
    stopped.promise.then((reason) => {
      clearTimeout(timer)
      reject(new Error(reason))
    })
  })
  let features: ReadonlySet<string>
  try {
    features = await ready
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }

  const pending = new Map<number, Pending>()
  let nextId = 1
  // The channel keeps the service alive only while a command is under way.
  const holdOpen = () => (pending.size > 0 ? child.channel?.ref() : child.channel?.unref())
  child.unref()
  holdOpen()

  const finish = (id: number, entry: Pending) => {
    if (entry.exitSeen && entry.stderr.writableEnded) {
      pending.delete(id)
      holdOpen()
    }
  }

  child.on('message', (message: SpawnerMessage, handle?: Socket) => {
    if (message.type === 'ready') return
    const entry = pending.get(message.id)
    if (!entry) return
    switch (message.type) {
      case 'spawned': {
        clearTimeout(entry.timer)
        if (!handle) {
          // Node gave up passing the pipe (the service out of descriptors): nothing could read it.
          killGroup(message.pid)
          entry.launched?.reject(
            new Error('The output pipe of the command could not be received (out of file descriptors?)'),
          )
          entry.launched = undefined
          break
        }
        const stdout = handle
        entry.stdout = stdout
        // 'close' comes after an 'error' too: the streams' errors are their readers' to handle.
        const closed = Promise.all([
          new Promise((resolve) => stdout.once('close', resolve)),
          new Promise((resolve) => entry.stderr.once('close', resolve)),
          entry.exit.promise.catch(() => undefined),
        ]).then(() => undefined)
        entry.launched?.resolve({
          pid: message.pid,
          stdout,
          stderr: entry.stderr,
          exited: entry.exit.promise,
          closed,
          started: entry.started.promise,
          signal: (signal: NodeJS.Signals) => sendSignal(message.id, signal),
          ...(entry.takesInput ? { input: (data: string) => writeInput(message.id, entry, data) } : {}),
        })
        entry.launched = undefined
        break
      }
      case 'status':
        // Bubblewrap's own word on its exit, before the spawner's (docs/adr/0473).
        if (handle)
          exitCodeFrom(handle).then((code) => {
            if (code !== undefined) entry.exit.resolve([code, null])
          })
        break
      case 'stderr-pipe':
        if (handle) {
          entry.stderrPipe = handle
          handle.on('error', () => entry.stderr.end())
          handle.pipe(entry.stderr)
        } else entry.stderr.end()
        break
      case 'stdin':
        if (handle) {
          handle.on('error', () => undefined)
          entry.stdin = handle
        }
        break
      case 'started':
        entry.started.resolve()
        break
      case 'spawn-error':
        clearTimeout(entry.timer)
        entry.started.resolve()
        entry.launched?.reject(spawnError(message.error))
        pending.delete(message.id)
        holdOpen()
        break
      case 'stderr':
        entry.stderr.write(Buffer.from(message.data, 'base64'))
        break
      case 'stderr-end':
        entry.stderr.end()
        finish(message.id, entry)
        break
      case 'exit':
        // The spawner tells the exit once stderr closed too (docs/adr/0498): its end comes with it.
        if (message.stderrEnded) entry.stderr.end()
        entry.stdin?.destroy()
        entry.started.resolve()
        entry.exitSeen = true
        entry.exit.resolve([message.code, message.signal])
        drain(entry)
        finish(message.id, entry)
        break
    }
  })

  // Straight into the pipe when its handle came, else through the spawner.
  const writeInput = (id: number, entry: Pending, data: string) => {
    if (entry.stdin && !entry.stdin.destroyed) entry.stdin.end(data)
    else sendInput(id, data)
  }

  const sendInput = (id: number, data: string) => {
    if (gone !== undefined || !pending.has(id)) return
    const request: InputRequest = { type: 'input', id, data }
    child.send(request, (error) => {
      if (error) child.kill('SIGKILL')
    })
  }

  // After the exit nothing is sent: the spawner would find no process, and the pid is not ours any more.
  const sendSignal = (id: number, signal: NodeJS.Signals) => {
    if (gone !== undefined || pending.get(id)?.exitSeen !== false) return
    const request: SignalRequest = { type: 'signal', id, signal }
    child.send(request, (error) => {
      if (error) child.kill('SIGKILL')
    })
  }

  let gone: string | undefined
  stopped.promise.then((reason) => {
    gone = reason
    const error = new SpawnerStoppedError(reason)
    for (const entry of pending.values()) {
      clearTimeout(entry.timer)
      entry.launched?.reject(error)
      entry.started.resolve()
      entry.exit.reject(error)
      entry.stdin?.destroy()
      entry.stderrPipe?.unpipe(entry.stderr)
      entry.stderrPipe?.destroy()
      if (!entry.stderr.writableEnded) entry.stderr.end()
    }
    pending.clear()
  })

  return {
    pid: child.pid as number,
    features,
    stopped: stopped.promise,
    kill: () => child.kill('SIGKILL'),
    launch(file, args, options) {
      if (gone !== undefined) return Promise.reject(new SpawnerStoppedError(gone))
      const id = nextId++
      const launched = deferred<LaunchedCommand>()
      const entry: Pending = {
        launched,
        exit: deferred(),
        started: deferred(),
        stderr: new PassThrough(),
        exitSeen: false,
        takesInput: options.takesInput === true,
      }
      if (!options.announcesStart) entry.started.resolve()
      entry.timer = setTimeout(() => child.kill('SIGKILL'), LAUNCH_TIMEOUT_MS)
      pending.set(id, entry)
      holdOpen()
      const request: SpawnRequest = {
        type: 'spawn',
        id,
        file,
        args,
        cwd: options.cwd,
        env: options.env,
        ...(options.announcesStart ? { announcesStart: true } : {}),
        ...(options.takesInput ? { takesInput: true } : {}),
        ...(options.sameSession ? { sameSession: true } : {}),
        ...(options.reportsStatus ? { reportsStatus: true } : {}),
        ...(options.mergesStderr ? { mergesStderr: true } : {}),
        ...(options.unblocksStart ? { unblocksStart: true } : {}),
        ...(options.pidNamespace ? { pidNamespace: true } : {}),
      }
      child.send(request, (error) => {
        if (error) child.kill('SIGKILL')
      })
      return launched.promise
    },
  }
}
