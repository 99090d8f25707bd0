import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'

export type SearchProcessResult = { lines: string[]; exitCode: number | null; stderr: string; stoppedEarly: boolean }

const MAX_STDERR_CHARS = 4_000

/**
 * Runs a search program with argv (no shell), keeping at most `maxLines` output lines: past
 * them the process is stopped, so a search matching millions of lines costs little. The abort
 * signal kills it.
 */
export async function runSearchProcess(
  program: string,
  args: readonly string[],
  options: { cwd: string; signal: AbortSignal; maxLines: number; acceptLine?: ((line: string) => boolean) | undefined },
): Promise<SearchProcessResult> {
  const child = spawn(program, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal })
  const closed = once(child, 'close') as Promise<[number | null]>
  closed.catch(() => undefined)
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
      child.kill('SIGTERM')
      break
    }
    lines.push(line)
  }
  reader.close()
  const [exitCode] = await closed
  return { lines, exitCode: stoppedEarly ? 0 : exitCode, stderr, stoppedEarly }
}
