/**
 * The spawner process: started once by the service (spawner-client.ts), it forks and execs each
 * Bash command so that the fork, which copies the page tables of the process that forks and waits
 * for the child's exec, blocks this small process instead of the service's event loop
 * (docs/adr/0160-a-spawner-process-forks-bash.md). It imports only `node:` modules: the smaller
 * this process, the cheaper each fork.
 *
 * The command's stdout pipe goes to the service unread, as the handle of the `spawned` message;
 * stderr (only the wrappers write there: the shell merges the command's own stderr) is relayed;
 * the exit comes back as a message. When the service goes (even by SIGKILL) the IPC channel
 * closes: every command still running is killed with its process group and this process exits.
 *
 * Where native/spawner.c is built, it runs instead (posix_spawn, no fork of a Node process:
 * docs/adr/0499-the-native-spawner.md); this one is the fallback and TOOLEXEC_SPAWNER=node.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import type { InputRequest, SignalRequest, SpawnerMessage, SpawnFailure, SpawnRequest } from './spawner-protocol.js'

const running = new Map<number, ChildProcess>()
/** The running commands started without a session of their own (`sameSession`). */
const sameSession = new WeakSet<ChildProcess>()

function send(message: SpawnerMessage, handle?: Readable | Writable): void {
  if (!process.connected) return
  // A channel that closed in between is handled by 'disconnect'.
  process.send?.(message, handle as never, undefined, () => undefined)
}

/**
 * Node starts reading a child's pipe at once (a net.Socket made from a handle calls read(0));
 * bytes read here before the handle reaches the service would be lost. Stopping the read in the
 * same turn as the spawn, before any poll, is what Node's own `pauseOnCreate` option does.
 */
function leaveUnread(stream: Readable): void {
  const handle = (stream as unknown as { _handle?: { reading: boolean; readStop(): number } })._handle
  if (handle) {
    handle.reading = false
    handle.readStop()
  }
}

function failure(error: NodeJS.ErrnoException): SpawnFailure {
  const { message, code, errno, syscall, path } = error
  return {
    message,
    ...(code ? { code } : {}),
    ...(errno ? { errno } : {}),
    ...(syscall ? { syscall } : {}),
    ...(path ? { path } : {}),
  }
}

function start(request: SpawnRequest): void {
  const { id } = request
  let child: ChildProcess
  try {
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: request.sameSession !== true,
      stdio: [
        request.takesInput ? 'pipe' : 'ignore',
        'pipe',
        'pipe',
        ...(request.announcesStart ? ['pipe' as const] : []),
        ...(request.announcesStart && request.reportsStatus ? ['pipe' as const] : []),
      ],
    })
  } catch (error) {
    send({ type: 'spawn-error', id, error: failure(error as NodeJS.ErrnoException) })
    return
  }
  const { pid, stdout, stderr } = child
  if (pid === undefined || !stdout || !stderr) {
    // ENOENT, EACCES and the like come as an 'error' event, with no process.
    child.once('error', (error) => send({ type: 'spawn-error', id, error: failure(error) }))
    return
  }
  leaveUnread(stdout)
  // A warm sandbox discarded, or gone before its command came: nothing to write to.
  child.stdin?.on('error', () => undefined)
  running.set(id, child)
  if (request.sameSession) sameSession.add(child)
  send({ type: 'spawned', id, pid }, stdout)
  // Sent, the handle closes here: the service holds the only write end (docs/adr/0471).
  if (child.stdin) send({ type: 'stdin', id }, child.stdin)
  const status = child.stdio[4] as Readable | null | undefined
  if (status) {
    // The service reads the end itself (docs/adr/0473): no relay, nothing read here.
    leaveUnread(status)
    send({ type: 'status', id }, status)
    leaveUnread(stderr)
    send({ type: 'stderr-pipe', id }, stderr)
  }
  const announcer = child.stdio[3] as Readable | null | undefined
  if (announcer) {
    // The first byte, or the end without one (the wrapper failed before writing): either way the start is over.
    let said = false
    const started = () => {
      announcer.destroy()
      if (said) return
      said = true
      send({ type: 'started', id })
    }
    announcer.once('data', started)
    announcer.once('end', started)
    announcer.once('error', started)
  }
  // The exit is told once the wrappers' stderr closed too (only `bwrap`, `setpriv`, `unshare` and
  // the wrapper shell hold it: the command's own stderr goes to stdout), in one message: the
  // service, which waits for both, is woken once (docs/adr/0498-stderr-end-rides-with-the-exit.md).
  let stderrClosed = status !== undefined && status !== null
  let exit: [number | null, NodeJS.Signals | null] | undefined
  const sendExit = () => {
    if (!exit || !stderrClosed) return
    const [code, signal] = exit
    send({ type: 'exit', id, code, signal, ...(status ? {} : { stderrEnded: true }) })
  }
  if (!status) {
    stderr.on('data', (chunk: Buffer) => send({ type: 'stderr', id, data: chunk.toString('base64') }))
    stderr.once('close', () => {
      stderrClosed = true
      sendExit()
    })
  }
  child.once('exit', (code, signal) => {
    running.delete(id)
    exit = [code, signal]
    sendExit()
  })
}

process.on('message', (message: SpawnRequest | InputRequest | SignalRequest) => {
  if (message.type === 'spawn') start(message)
  else if (message.type === 'input') running.get(message.id)?.stdin?.end(message.data)
  // Node signals only a process it has not reaped yet; one that exited is no longer in `running`.
  else if (message.type === 'signal') running.get(message.id)?.kill(message.signal)
})

// Its life is the service's: a process manager that signals every process of the service (systemd's
// control group) must not take it away while the service drains. It goes when the channel closes.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => undefined)

process.once('disconnect', () => {
  for (const child of running.values()) {
    try {
      if (child.pid === undefined) continue
      // One with a group of its own is killed with its group; one in this group by its process.
      if (sameSession.has(child)) child.kill('SIGKILL')
      else process.kill(-child.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  process.exit(0)
})

send({ type: 'ready' })
