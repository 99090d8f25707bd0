import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import { killProcessGroup } from '../bash/kill-process-group.js'
import { commandEnvironment } from '../bash/run-shell-command.js'
import { BWRAP_COMMAND, bubblewrapArguments, type SandboxLayout } from '../bash/sandbox.js'

export type PersistentShellOptions = {
  cwd: string
  env?: Readonly<Record<string, string>>
  /** Inside bubblewrap with this layout (the whole shell lives in one sandbox); null: bare bash. */
  sandbox: SandboxLayout | null
}

export type ShellCommandResult =
  | { state: 'finished'; exitCode: number }
  | { state: 'timed-out' | 'aborted' }
  /** The shell itself ended (`exit`, a fatal signal): it must be started again. */
  | { state: 'exited'; exitCode: number }

/** `'` → `'\''`: the command travels as one single-quoted word, exactly as written. */
const singleQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/**
 * One long-lived `bash` (docs/adr/0145-persistent-shell.md): state such as `cd` and exported
 * variables survives between commands. Each command is `eval`ed (a syntax error stays inside
 * the eval) with stdin from /dev/null (nothing reads the pipe we write commands to), followed
 * by a marker line carrying its exit status; output up to the marker goes to the collector.
 * The shell leads its own process group: `kill()` ends it and everything it started.
 */
export function startPersistentShell(options: PersistentShellOptions) {
  const shell = ['bash', '--noprofile', '--norc']
  const argv = options.sandbox ? [BWRAP_COMMAND, ...bubblewrapArguments(options.sandbox), ...shell] : shell
  const child: ChildProcess = spawn(argv[0] as string, argv.slice(1), {
    cwd: options.cwd,
    env: options.env ?? commandEnvironment(),
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let exitCode: number | null = null
  const exited = new Promise<number>((resolve) => {
    child.once('exit', (code, signal) => {
      exitCode = code ?? 128 + (signal === 'SIGKILL' ? 9 : 15)
      resolve(exitCode)
    })
    child.once('error', () => {
      exitCode = 127
      resolve(exitCode)
    })
  })
  child.stdin?.on('error', () => undefined)
  // Everything the shell and its commands print arrives on stdout, in the order written.
  child.stdin?.write('exec 2>&1\n')
  let onData: ((text: string) => void) | undefined
  const decoder = new StringDecoder('utf8')
  child.stdout?.on('data', (chunk: Buffer) => onData?.(decoder.write(chunk)))
  child.stderr?.on('data', (chunk: Buffer) => onData?.(chunk.toString('utf8')))

  async function run(
    command: string,
    call: { timeoutMs: number; signal: AbortSignal; output: { write(chunk: Buffer): unknown } },
  ): Promise<ShellCommandResult> {
    if (exitCode !== null) return { state: 'exited', exitCode }
    used = true
    const marker = `\n__toolexec_${randomUUID().replaceAll('-', '')}__`
    const pattern = new RegExp(`${marker.slice(1)}(\\d+)\\n`)
    let pending = ''
    let finish: (result: ShellCommandResult) => void = () => undefined
    const done = new Promise<ShellCommandResult>((resolve) => {
      finish = resolve
    })
    onData = (text) => {
      pending += text
      const found = pattern.exec(pending)
      if (found) {
        // The marker's leading newline is ours; the output keeps its own.
        call.output.write(Buffer.from(pending.slice(0, Math.max(0, found.index - 1))))
        pending = ''
        finish({ state: 'finished', exitCode: Number(found[1]) })
        return
      }
      // Held back: what could be the start of a marker split across chunks.
      const keep = marker.length + 12
      if (pending.length > keep) {
        call.output.write(Buffer.from(pending.slice(0, pending.length - keep)))
        pending = pending.slice(pending.length - keep)
      }
    }
    const timer = setTimeout(() => finish({ state: 'timed-out' }), call.timeoutMs)
    const onAbort = () => finish({ state: 'aborted' })
    call.signal.addEventListener('abort', onAbort, { once: true })
    if (call.signal.aborted) onAbort()
    void exited.then((code) => finish({ state: 'exited', exitCode: code }))
    child.stdin?.write(`eval ${singleQuoted(command)} < /dev/null\nprintf '\\n%s%s\\n' '${marker.slice(1)}' "$?"\n`)
    try {
      const result = await done
      if (result.state !== 'finished' && pending !== '') call.output.write(Buffer.from(pending))
      if (result.state === 'timed-out' || result.state === 'aborted') await kill()
      return result
    } finally {
      onData = undefined
      clearTimeout(timer)
      call.signal.removeEventListener('abort', onAbort)
    }
  }

  let used = false
  let killing: Promise<void> | undefined
  /** SIGTERM then SIGKILL to the shell's whole process group; resolves once it is gone. */
  function kill(): Promise<void> {
    killing ??= (async () => {
      if (child.pid !== undefined && exitCode === null) await killProcessGroup(child.pid)
      else if (child.pid !== undefined) await killProcessGroup(child.pid).catch(() => undefined)
      child.stdin?.destroy()
    })()
    return killing
  }

  return {
    /** Names this shell in the saved state (docs/adr/0270-shell-state-follows-the-session.md). */
    id: randomUUID(),
    run,
    kill,
    /** Whether a command has been sent to it (a fresh shell can take a restored state). */
    get used() {
      return used
    },
    get alive() {
      return exitCode === null && killing === undefined
    },
  }
}

export type PersistentShell = ReturnType<typeof startPersistentShell>
