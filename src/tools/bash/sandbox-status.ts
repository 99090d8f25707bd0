import type { Readable } from 'node:stream'

/**
 * The exit code bubblewrap reports on its `--json-status-fd` (one JSON document a line: the
 * child's pid at its start, `{ "exit-code": N }` as its own exit), read by the service straight
 * from the pipe so that a warm sandbox's end needs no word from the spawner process
 * (docs/adr/0473-a-warm-sandbox-reports-its-own-end.md). Resolves with undefined when the pipe
 * ends without one (bubblewrap killed by a signal: the spawner's exit message says which).
 */
export function exitCodeFrom(status: Readable): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = ''
    status.setEncoding('utf8')
    status.on('data', (chunk: string) => {
      text += chunk
      for (const line of text.split('\n')) {
        // Bubblewrap's own writes, outside the sandbox: the command cannot reach this pipe.
        const code = /"exit-code"\s*:\s*(\d+)/.exec(line)?.[1]
        if (code !== undefined && line.trimEnd().endsWith('}')) return resolve(Number(code))
      }
    })
    status.once('end', () => resolve(undefined))
    status.once('error', () => resolve(undefined))
    status.once('close', () => resolve(undefined))
  })
}
