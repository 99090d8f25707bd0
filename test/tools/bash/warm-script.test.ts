// Pins what a warm sandbox's shell does with what the service writes into it, without bubblewrap
// (docs/adr/0580-a-warm-command-runs-without-waiting-for-its-pipes-end.md): a short command runs
// as soon as its last line is in, byte for byte as the cold start's `bash -c`, and a pipe that
// ends early runs nothing. The sandbox around it is pinned by warm-sandboxes.test.ts.

import { spawn, spawnSync } from 'node:child_process'
import type { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { WRAPPER_SHELL } from '../../../src/tools/bash/containment.js'
import { MERGE_STDERR } from '../../../src/tools/bash/run-shell-command.js'
import { WARM_SCRIPT, warmInput } from '../../../src/tools/bash/warm-sandboxes.js'

type Outcome = { output: string; code: number | null }

/**
 * The warm script in a plain shell, given `input` once it said it is set up; its stdin is closed
 * only when `close` is true (the service closes it, but the command must not wait for that).
 */
function warmShell(input: string, close: boolean): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(WRAPPER_SHELL, ['-c', WARM_SCRIPT, 'sh'], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk
    })
    child.stdin.on('error', () => undefined)
    child.once('error', reject)
    ;(child.stdio[3] as Readable).once('data', () => (close ? child.stdin.end(input) : child.stdin.write(input)))
    child.once('close', (code) => {
      child.stdin.destroy()
      resolve({ output, code })
    })
  })
}

/** The cold start's wrapper, `sh -c 'exec bash -c "$1" 2>&1' sh COMMAND`, stdin /dev/null. */
function cold(command: string): Outcome {
  const run = spawnSync(WRAPPER_SHELL, ['-c', MERGE_STDERR.replace('printf . >&3; ', ''), 'sh', command], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return { output: run.stdout, code: run.status }
}

const COMMANDS = [
  'true',
  'exit 3',
  'echo "$0" "$#"; echo "$BASH_EXECUTION_STRING"',
  'set -u; echo $undefined_here',
  'if then',
  'echo $LINENO\n\necho $LINENO\n',
  "trap 'echo bye' EXIT; echo hi; cat",
  "  printf '[%s]\\n' 'a\\b  '  \n\n",
  '\n\n',
  '',
  'echo one \\\necho two\r\n\\',
]

describe('the warm sandbox script', () => {
  it.each(COMMANDS)('runs %j as the cold start does, without waiting for the pipe to close', async (command) => {
    // On the line-to-the-end script this never ran: the shell waited for the pipe's end.
    expect(await warmShell(warmInput(command), false)).toEqual(cold(command))
  })

  it('runs the same with the pipe closed after the command, as the service does', async () => {
    const command = 'printf "%s|" a b; echo "$0"\nexit 4'
    expect(await warmShell(warmInput(command), true)).toEqual(cold(command))
  })

  it('runs nothing when the pipe ends before the last line the count promised', async () => {
    // The count says two newlines; the pipe ends after one line and a half.
    expect(await warmShell('2\necho first\necho sec', true)).toEqual({ output: '', code: 1 })
    expect(await warmShell('1\necho first\n', true)).toEqual({ output: '', code: 1 })
    // A count that is no number (never written by the service) runs nothing either.
    const garbled = await warmShell('x\necho first\n', true)
    expect(garbled.code).not.toBe(0)
    expect(garbled.output).not.toContain('first')
  })
})
