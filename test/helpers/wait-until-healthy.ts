import type { ChildProcess } from 'node:child_process'

/**
 * Polls `url` (every 100 ms, up to `timeoutMs`) until it answers 2xx; fails at once when `child`
 * exits first, and kills it on timeout. `name` and `output` go into the error.
 */
export async function waitUntilHealthy(
  url: string,
  process: { name: string; child: ChildProcess; output: () => string; kill: () => void; timeoutMs: number },
): Promise<void> {
  const { name, child, output, kill, timeoutMs } = process
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${output()}`)
    const up = await fetch(url).then(
      (response) => response.ok,
      () => false,
    )
    if (up) return
    if (Date.now() > deadline) {
      kill()
      throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s: ${output()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
