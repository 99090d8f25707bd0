// One sandbox-less `runShellCommand` in /tmp with its output collected in memory: what the
// spawner and PID-namespace tests run their commands with.
import type { Containment } from '../../../src/tools/bash/containment.js'
import { createOutputCollector } from '../../../src/tools/bash/output-collector.js'
import { runShellCommand } from '../../../src/tools/bash/run-shell-command.js'

export function runCollected(
  command: string,
  options: { containment: Containment; timeoutMs: number; signal?: AbortSignal; env?: Record<string, string> },
) {
  const output = createOutputCollector({ thresholdChars: 100_000, openBlob: () => Promise.reject(new Error('none')) })
  const result = runShellCommand({
    command,
    cwd: '/tmp',
    timeoutMs: options.timeoutMs,
    signal: options.signal ?? new AbortController().signal,
    output,
    sandbox: null,
    containment: options.containment,
    ...(options.env ? { env: options.env } : {}),
  })
  const text = async () => {
    const collected = await output.result()
    return collected.spilled ? collected.head : collected.text
  }
  return { result, text }
}
