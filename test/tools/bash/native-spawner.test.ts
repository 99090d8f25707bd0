// Pins what the native spawner (native/spawner.c, docs/adr/0499-the-native-spawner.md) must do like
// the Node one, with real processes: the protocol's JSON reaches a command byte for byte, a failed
// start reads as Node's, the service's end (even by SIGKILL) kills its commands, a malformed
// message stops it with a word on stderr, and the launcher falls back to the Node spawner without it.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Duplex } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { createCommandLauncher } from '../../../src/tools/bash/launch-command.js'
import type { LaunchedCommand } from '../../../src/tools/bash/launched-command.js'
import { BLOCK_ON_FD_3 } from '../../../src/tools/bash/run-shell-command.js'
import { detectSandbox } from '../../../src/tools/bash/sandbox.js'
import { NATIVE_SPAWNER, nativeSpawnerMissing, type SpawnerKind } from '../../../src/tools/bash/spawner-choice.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { processesMatching } from './process-helpers.js'

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }

async function stdoutOf(command: LaunchedCommand): Promise<Buffer> {
  const chunks: Buffer[] = []
  command.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
  await command.closed
  return Buffer.concat(chunks)
}

/** What a failed start of `argv` rejects with, as plain fields. */
async function failureOf(kind: SpawnerKind, argv: string[], cwd = '/tmp') {
  const launcher = createCommandLauncher({ spawner: kind })
  expect(await launcher.start()).toMatchObject({ mode: 'spawner', spawner: kind })
  const error = await launcher.launch(argv, { cwd, env }).then(
    () => undefined,
    (thrown: NodeJS.ErrnoException) => thrown,
  )
  if (!error) throw new Error(`${argv[0]} started`)
  const { message, code, errno, syscall } = error
  return { message, code, errno, syscall, path: error.path }
}

/** The native spawner with its channel written and read by hand: fd 3 a socket pair, as Node's IPC channel is. */
async function byHand() {
  const child = spawn(NATIVE_SPAWNER, [], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    env: { NODE_CHANNEL_FD: '3' },
  })
  const channel = child.stdio[3] as Duplex
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk
  })
  const stopped = once(child, 'close').then(([code]) => code as number)
  const [ready] = (await once(channel, 'data')) as [Buffer]
  // One JSON text and its newline; `features` as this build and host allow (docs/adr/0542, 0555).
  expect(ready.toString()).toMatch(
    /^\{"type":"ready","features":\["merge-stderr","block-fd"(,"pid-namespace")?(,"process-groups")?\]\}\n$/,
  )
  return { channel, stopped, stderr: () => stderr }
}

describe.skipIf(nativeSpawnerMissing() !== undefined)('the native spawner', () => {
  it('passes quotes, backslashes, newlines, non-ASCII and astral characters to the command byte for byte, as the Node one does', async () => {
    const value = 'a "quoted" \\back\\slash\nnew\tline é ü 中文 😀 \u0001 \u007f \ud800 end'
    const expected = Buffer.from(`${value}|${value}`)
    for (const kind of ['native', 'node'] as const) {
      const launcher = createCommandLauncher({ spawner: kind })
      expect(await launcher.start()).toMatchObject({ spawner: kind })
      const command = await launcher.launch(['/bin/sh', '-c', 'printf %s "$1|$X"', 'sh', value], {
        cwd: '/tmp',
        env: { ...env, X: value },
      })
      expect(await stdoutOf(command)).toEqual(expected)
      expect(await command.exited).toEqual([0, null])
    }
  })

  it.skipIf(detectSandbox('auto').sandbox !== 'bwrap')(
    'announces a bubblewrap start once bwrap read its --block-fd byte, before the command ends, and the command never sees fd 3 (docs/adr/0541-bubblewrap-announces-its-own-start.md)',
    async () => {
      const launcher = createCommandLauncher({ spawner: 'native' })
      const directory = await mkdtemp(path.join(os.tmpdir(), 'toolexec-block-fd-'))
      const fifo = path.join(directory, 'go')
      execFileSync('mkfifo', [fifo])
      const script = `[ -e /proc/$$/fd/3 ] && echo fd3; cat ${fifo}; echo err >&2`
      const launched = await launcher.launch(['false'], {
        cwd: '/tmp',
        env,
        announcesStart: true,
        sameSession: true,
        direct: {
          argv: [
            'bwrap',
            ...BLOCK_ON_FD_3,
            ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent'],
            '--bind',
            directory,
            directory,
            'sh',
            '-c',
            script,
          ],
          unblocksStart: true,
        },
      })
      const output = stdoutOf(launched)
      let exited = false
      launched.exited.then(() => {
        exited = true
      })
      // Held until the fifo is written: a start said only at the exit (bwrap's monitor keeping
      // fd 3 open) would never come, and the test time out.
      await launched.started
      expect(exited).toBe(false)
      await writeFile(fifo, 'went\n')
      expect((await output).toString()).toBe('went\nerr\n')
      expect(await launched.exited).toEqual([0, null])
    },
  )

  it('names the signal that ended a command as Node does', async () => {
    for (const kind of ['native', 'node'] as const) {
      const launcher = createCommandLauncher({ spawner: kind })
      for (const name of ['TERM', 'KILL', 'ABRT', 'USR1', 'IO', 'SEGV']) {
        const command = await launcher.launch(['/bin/sh', '-c', `kill -${name} $$`], { cwd: '/tmp', env })
        command.stdout.resume()
        expect([kind, await command.exited]).toEqual([kind, [null, `SIG${name}`]])
      }
    }
  })

  it('words a failed start as Node does: the same message, code, errno, syscall and path', async () => {
    const notExecutable = path.join(await mkdtemp(path.join(os.tmpdir(), 'native-spawner-')), 'text')
    await writeFile(notExecutable, 'echo hi\n', { mode: 0o644 })
    const cases: [string[], string?][] = [
      [['no-such-file']],
      [['/no/such/file']],
      [[notExecutable]],
      [['/tmp']],
      [['true'], '/no/such/directory'],
    ]
    for (const [argv, cwd] of cases) {
      const native = await failureOf('native', argv, cwd)
      expect(native).toEqual(await failureOf('node', argv, cwd))
      if (argv[0] === 'no-such-file')
        expect(native).toEqual({
          message: 'spawn no-such-file ENOENT',
          code: 'ENOENT',
          errno: -2,
          syscall: 'spawn no-such-file',
          path: 'no-such-file',
        })
    }
  })

  it('kills every command it started, with its group or alone, when the process holding its channel is SIGKILLed, and exits', async () => {
    // This run's own: nothing left by another run counts.
    const seconds = `917.${process.pid}`
    const marker = `sleep ${seconds}`
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./hold-native-spawner.ts', import.meta.url)), seconds],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let spawner = 0
    try {
      const [line] = (await once(holder.stdout, 'data')) as [Buffer]
      spawner = (JSON.parse(line.toString()) as { spawner: number }).spawner
      // The wrapper shell and its two sleeps, and the sleep alone.
      await vi.waitFor(async () => expect(await processesMatching(marker)).toHaveLength(4), REAL_PROCESS_WAIT)
    } finally {
      holder.kill('SIGKILL')
    }
    await vi.waitFor(async () => expect(await processesMatching(marker)).toEqual([]), REAL_PROCESS_WAIT)
    await vi.waitFor(() => expect(() => process.kill(spawner, 0)).toThrow(), REAL_PROCESS_WAIT)
  })

  it('decodes every JSON escape, surrogate pairs into UTF-8 and a lone surrogate into U+FFFD, as Node does', async () => {
    const { channel, stopped } = await byHand()
    const out = path.join(await mkdtemp(path.join(os.tmpdir(), 'native-spawner-')), 'out')
    // Escapes Node's JSON.stringify never writes (\/, \u00e9, a pair as two escapes) next to those it does.
    const value = String.raw`\ud83d\ude00\/\u00e9\b\f\r\n\t\"\\ \ud800x \u0041`
    channel.write(
      `{"type":"spawn","id":7,"file":"/bin/sh","args":["-c","printf %s \\"$X\\" > \\"$OUT\\""],"cwd":"/tmp","env":{"X":"${value}","OUT":"${out}"}}\n`,
    )
    let said = ''
    channel.on('data', (chunk: Buffer) => {
      said += chunk
    })
    await vi.waitFor(() => expect(said).toContain('{"type":"exit","id":7,"code":0,"signal":null,"stderrEnded":true}'))
    expect(await readFile(out)).toEqual(Buffer.from('😀/é\b\f\r\n\t"\\ \ufffdx A'))
    channel.end()
    expect(await stopped).toBe(0)
  })

  it('stops on a malformed message with a line on stderr, never the message itself, and a non-zero exit (the service restarts it)', async () => {
    const { channel, stopped, stderr } = await byHand()
    channel.write('{"type":"spawn","id":1,"file":"true","args":[],"cwd":"/tmp","env":{"TOKEN":"secret\\uZZZZ"}}\n')
    expect(await stopped).toBe(2)
    expect(stderr()).toContain('toolexec native spawner: malformed message')
    expect(stderr()).not.toContain('secret')
  })

  it('leaves the Node spawner in force, and says why, where the native one is not built or cannot start', async () => {
    const missing = createCommandLauncher({ nativeSpawner: '/nonexistent/toolexec-spawner' })
    const state = await missing.start()
    expect(state).toMatchObject({ mode: 'spawner', spawner: 'node' })
    expect(state.mode === 'spawner' && state.reason).toContain('the native spawner is not built')
    expect(missing.processes().spawner).toBe('node')
    // A program that exits at once, never ready.
    const broken = createCommandLauncher({ nativeSpawner: '/bin/false' })
    expect(await broken.start()).toMatchObject({
      mode: 'spawner',
      spawner: 'node',
      reason: 'the native spawner could not start: exit code 1',
    })
    const command = await broken.launch(['echo', 'still here'], { cwd: '/tmp', env })
    expect((await stdoutOf(command)).toString()).toBe('still here\n')
    // Asked for by name, the Node one is used with no word of the native one.
    expect(await createCommandLauncher({ spawner: 'node' }).start()).toEqual(
      expect.not.objectContaining({ reason: expect.anything() }),
    )
  })
})
