import { spawn } from 'node:child_process'
import { type HookVerdict, parseHookOutput, verdictFromOutput } from './hook-output.js'
import type { HookRun, HookRunOptions } from './hook-run.js'

// A hook that floods stdout must not cost unbounded memory; its answer is small JSON anyway.
const MAX_CAPTURE = 1024 * 1024

function capture(stream: NodeJS.ReadableStream | null): () => string {
  const chunks: Buffer[] = []
  let size = 0
  stream?.on('data', (chunk: Buffer) => {
    if (size >= MAX_CAPTURE) return
    chunks.push(chunk)
    size += chunk.length
  })
  return () => Buffer.concat(chunks).toString('utf8').slice(0, MAX_CAPTURE)
}

/** Exit 0: the JSON on stdout decides (or nothing does); 2: blocked, stderr is the reason. */
function interpret(code: number | null, stdout: string, stderr: string, event: string): HookRun {
  if (code === 2) return { ok: true, verdict: { blockingReason: stderr.trim() || 'A hook exited with code 2.' } }
  if (code !== 0) {
    const detail = stderr.trim() ? `: ${stderr.trim().slice(0, 500)}` : ''
    return { ok: false, error: `exited with code ${code}${detail}` }
  }
  try {
    const output = parseHookOutput(stdout)
    const verdict: HookVerdict = output ? verdictFromOutput(output, event) : {}
    return { ok: true, verdict }
  } catch (error) {
    return { ok: false, error: (error as Error).message }
  }
}

/**
 * Runs a command hook with `sh -c` in its own process group, the event JSON on stdin. Past
 * its timeout, or when the call is aborted, the whole group is killed and the hook counts as
 * a non-blocking error. Never rejects.
 */
export function runCommandHook(command: string, options: HookRunOptions): Promise<HookRun> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn('sh', ['-c', command], { cwd: options.cwd, env: options.env, detached: true, stdio: 'pipe' })
    } catch (error) {
      resolve({ ok: false, error: `could not start: ${(error as Error).message}` })
      return
    }
    const stdout = capture(child.stdout)
    const stderr = capture(child.stderr)
    let settled = false
    const finish = (run: HookRun) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      resolve(run)
    }
    const killGroup = (why: string) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
      finish({ ok: false, error: why })
    }
    const onAbort = () => killGroup('aborted because the call was cancelled')
    const timer = setTimeout(
      () => killGroup(`timed out after ${options.timeoutMs} ms and was killed`),
      options.timeoutMs,
    )
    options.signal.addEventListener('abort', onAbort, { once: true })
    if (options.signal.aborted) onAbort()
    child.on('error', (error) => finish({ ok: false, error: `could not start: ${error.message}` }))
    child.on('close', (code, signal) => {
      if (signal !== null && code === null) finish({ ok: false, error: `killed by ${signal}` })
      else finish(interpret(code, stdout(), stderr(), options.event))
    })
    // A hook that never reads stdin closes the pipe early; that is not its failure.
    child.stdin?.on('error', () => {})
    child.stdin?.end(options.payload)
  })
}
