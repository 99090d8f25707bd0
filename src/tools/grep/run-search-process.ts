import { createInterface } from 'node:readline'
import { commandLauncher } from '../bash/launch-command.js'
import { commandEnvironment } from '../bash/run-shell-command.js'
import { StartCancelledError } from '../bash/start-pacer.js'

export type SearchProcessResult = { lines: string[]; exitCode: number | null; stderr: string; stoppedEarly: boolean }

const MAX_STDERR_CHARS = 4_000

/** What Node's `spawn` with a `signal` throws once the signal aborted the child. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted'), {
    name: 'AbortError',
    code: 'ABORT_ERR',
    cause: signal.reason,
  })
}

/**
 * Runs a search program with argv (no shell), keeping at most `maxLines` output lines: past
 * them the process is stopped, so a search matching millions of lines costs little. The abort
 * signal stops it. The program is started by the spawner process like Bash's commands: forking
 * the service itself blocked its event loop for about 10 ms per search
 * (docs/adr/0291-searches-start-through-the-spawner.md). It gets the commands' minimal
 * environment, not the service's.
 */
export async function runSearchProcess(
  program: string,
  args: readonly string[],
  options: { cwd: string; signal: AbortSignal; maxLines: number; acceptLine?: ((line: string) => boolean) | undefined },
): Promise<SearchProcessResult> {
  const { signal } = options
  if (signal.aborted) throw abortError(signal)
  const child = await commandLauncher
    // One program, no shell: no session of its own to start, it is stopped by its handle
    // (docs/adr/0460-commands-start-without-a-session-of-their-own.md).
    .launch([program, ...args], { cwd: options.cwd, env: commandEnvironment(), signal, sameSession: true })
    .catch((error: unknown) => {
      // Aborted while its start waited its turn (docs/adr/0301-process-starts-are-paced.md).
      throw error instanceof StartCancelledError ? abortError(signal) : error
    })
  const onAbort = () => child.signal('SIGTERM')
  signal.addEventListener('abort', onAbort, { once: true })
  if (signal.aborted) onAbort()
  try {
    let stderr = ''
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk.slice(0, MAX_STDERR_CHARS - stderr.length)
    })
    const lines: string[] = []
    let stoppedEarly = false
    const reader = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY })
    for await (const line of reader) {
      if (options.acceptLine && !options.acceptLine(line)) continue
      if (lines.length >= options.maxLines) {
        stoppedEarly = true
        child.signal('SIGTERM')
        break
      }
      lines.push(line)
    }
    reader.close()
    // The rest of the output is not wanted: closing our end lets `closed` settle.
    child.stdout.destroy()
    const [exitCode] = await child.exited
    await child.closed
    if (signal.aborted) throw abortError(signal)
    return { lines, exitCode: stoppedEarly ? 0 : exitCode, stderr, stoppedEarly }
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
