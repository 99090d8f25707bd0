// The cases of both spawners, the native one (native/spawner.c, docs/adr/0499-the-native-spawner.md)
// and the Node one (spawner-main.ts): spawner.test.ts and spawner-node.test.ts run them, each in a
// process of its own, as the service's one launcher (`commandLauncher`) takes its kind at its first start.
// Pins the spawner process (docs/adr/0160-a-spawner-process-forks-bash.md) with real processes:
// commands are its children and still run, exit, time out and get cancelled with their whole
// process group; SIGTERM and SIGINT do not stop it; a SIGKILLed spawner ends the command under it with a SpawnerStoppedError (its
// processes gone) and a new spawner runs the next one; a spawner that cannot start, or keeps
// stopping, leaves in-process spawning.
import { readFile } from 'node:fs/promises'
import os from 'node:os'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { commandLauncher, createCommandLauncher } from '../../../src/tools/bash/launch-command.js'
import { SpawnerStoppedError } from '../../../src/tools/bash/launched-command.js'
import type { LauncherChange } from '../../../src/tools/bash/launcher-state.js'
import { nativeSpawnerMissing, type SpawnerKind } from '../../../src/tools/bash/spawner-choice.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { processesMatching, uniqueSleepMarker } from './process-helpers.js'
import { runCollected } from './run-collected.js'

function run(command: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  return runCollected(command, {
    containment: 'process-group',
    timeoutMs: options.timeoutMs ?? 30_000,
    ...(options.signal ? { signal: options.signal } : {}),
  })
}

async function spawnerPid(kind: SpawnerKind): Promise<number> {
  const state = await commandLauncher.start()
  if (state.mode !== 'spawner') throw new Error(`no spawner here: ${state.reason}`)
  expect(state.spawner).toBe(kind)
  return state.pid
}

/** The spawner process's cases, with `kind` as the service's launcher's spawner (skipped where the native one is not built). */
export function describeSpawner(kind: SpawnerKind): void {
  const missing = kind === 'native' ? nativeSpawnerMissing() : undefined
  describe.skipIf(missing !== undefined)(`the ${kind} spawner process`, () => {
    beforeAll(() => commandLauncher.configure({ nice: 10, maxStarting: os.availableParallelism(), spawner: kind }))

    it('signals a command started without a session of its own by its handle, and nothing after its exit (docs/adr/0460-commands-start-without-a-session-of-their-own.md)', async () => {
      const pid = await spawnerPid(kind)
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
      const sleeper = await commandLauncher.launch(['sleep', '60'], { cwd: '/tmp', env, sameSession: true })
      sleeper.stdout.resume()
      // In the spawner's process group, not one of its own.
      const stat = await readFile(`/proc/${sleeper.pid}/stat`, 'utf8')
      expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])).toBe(pid)
      sleeper.signal('SIGTERM')
      expect(await sleeper.exited).toEqual([null, 'SIGTERM'])
      const quick = await commandLauncher.launch(['true'], { cwd: '/tmp', env, sameSession: true })
      quick.stdout.resume()
      expect(await quick.exited).toEqual([0, null])
      // Its pid may be another process's by now: nothing is sent.
      quick.signal('SIGKILL')
      await quick.closed
    })

    it('is the parent of each command, whose output and exit code come back as before', async () => {
      const pid = await spawnerPid(kind)
      const { result, text } = run('echo "parent=$PPID"; echo err >&2; exit 3')
      expect(await result).toEqual({ exitCode: 3, timedOut: false, aborted: false })
      expect(await text()).toBe(`parent=${pid}\nerr\n`)
    })

    it('outlives SIGTERM and SIGINT: only the service going ends it', async () => {
      const pid = await spawnerPid(kind)
      process.kill(pid, 'SIGTERM')
      process.kill(pid, 'SIGINT')
      const { result, text } = run('echo "parent=$PPID"')
      expect(await result).toMatchObject({ exitCode: 0 })
      expect(await text()).toBe(`parent=${pid}\n`)
      expect(await spawnerPid(kind)).toBe(pid)
    })

    it('kills the whole process group on timeout', async () => {
      const marker = uniqueSleepMarker()
      const { result } = run(`sleep ${marker} & sleep 30`, { timeoutMs: 300 })
      expect(await result).toMatchObject({ timedOut: true, aborted: false })
      expect(await processesMatching(marker)).toEqual([])
    })

    it('kills the whole process group when the call is cancelled', async () => {
      const marker = uniqueSleepMarker()
      const controller = new AbortController()
      const { result } = run(`sleep ${marker} & sleep 30`, { signal: controller.signal })
      await vi.waitFor(async () => expect(await processesMatching(marker)).not.toEqual([]), REAL_PROCESS_WAIT)
      controller.abort()
      expect(await result).toMatchObject({ aborted: true, timedOut: false })
      expect(await processesMatching(marker)).toEqual([])
    })

    it('ends the command under a killed spawner with an error, then runs the next one in a new spawner', async () => {
      const before = await spawnerPid(kind)
      const marker = uniqueSleepMarker()
      const { result } = run(`sleep ${marker}`)
      await vi.waitFor(async () => expect(await processesMatching(marker)).not.toEqual([]), REAL_PROCESS_WAIT)
      process.kill(before, 'SIGKILL')
      const error = await result.then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error).toBeInstanceOf(SpawnerStoppedError)
      expect((error as Error).message).toContain('stopped (signal SIGKILL) while this command ran')
      // The command dies by the signal the kernel sends as the spawner exits, and a killed process
      // leaves /proc only once it is scheduled: on a loaded host that can come after the error
      // (CI failed here once). A command that outlived its spawner would still fail the wait.
      await vi.waitFor(async () => expect(await processesMatching(marker)).toEqual([]), REAL_PROCESS_WAIT)
      const after = await spawnerPid(kind)
      expect(after).not.toBe(before)
      const next = run('echo "parent=$PPID"')
      expect(await next.result).toMatchObject({ exitCode: 0 })
      expect(await next.text()).toBe(`parent=${after}\n`)
    })

    it('merges stderr into stdout as written, with `bash` as $0, its own error texts and no fd 3 for the command (docs/adr/0540-the-spawner-merges-stderr.md)', async () => {
      await spawnerPid(kind)
      const { result, text } = run(
        'echo "$0"; echo out; echo err >&2; [ -e /proc/$$/fd/3 ] && echo fd3; nosuch; echo x >&3; echo last >&2; exit 4',
      )
      expect(await result).toMatchObject({ exitCode: 4 })
      expect(await text()).toBe(
        'bash\nout\nerr\nbash: line 1: nosuch: command not found\nbash: line 1: 3: Bad file descriptor\nlast\n',
      )
    })

    it('runs a command without its wrapper shell only where this spawner named the features (docs/adr/0542-spawner-features-are-announced.md)', async () => {
      const launcher = createCommandLauncher({ spawner: kind })
      await launcher.start()
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
      // The form each side of the handshake runs: the wrapper's argv for the Node spawner, which
      // names no feature, as for a native one built from older source.
      const launched = await launcher.launch(['/bin/sh', '-c', 'echo wrapper'], {
        cwd: '/tmp',
        env,
        announcesStart: true,
        direct: { argv: ['/bin/sh', '-c', 'echo direct >&2'], unblocksStart: false },
      })
      let out = ''
      launched.stdout.on('data', (chunk: Buffer) => {
        out += chunk
      })
      launched.stderr.resume()
      await launched.started
      expect(await launched.exited).toEqual([0, null])
      await launched.closed
      expect(out).toBe(kind === 'native' ? 'direct\n' : 'wrapper\n')
    })

    it("writes a warm command's input straight into its pipe: a stopped spawner does not hold it up", async () => {
      const launcher = createCommandLauncher({ spawner: kind })
      const state = await launcher.start()
      if (state.mode !== 'spawner') throw new Error(`no spawner here: ${state.reason}`)
      const command = await launcher.launch(['/bin/sh', '-c', 'printf . >&3; read -r line; echo "got $line"'], {
        cwd: '/tmp',
        env: {},
        announcesStart: true,
        takesInput: true,
      })
      // The stdin handle comes before the start, in order on the channel (docs/adr/0471).
      await command.started
      let out = ''
      command.stdout.on('data', (chunk: Buffer) => {
        out += chunk
      })
      const ended = new Promise((resolve) => command.stdout.once('end', resolve))
      process.kill(state.pid, 'SIGSTOP')
      try {
        command.input?.('hello\n')
        await ended
      } finally {
        process.kill(state.pid, 'SIGCONT')
      }
      expect(out).toBe('got hello\n')
      expect(await command.exited).toEqual([0, null])
    })

    it('leaves in-process spawning when the spawner cannot start, and says why', async () => {
      const launcher = createCommandLauncher({ main: '/nonexistent/spawner-main.js' })
      const state = await launcher.start()
      expect(state).toMatchObject({ mode: 'in-process' })
      expect(state.mode === 'in-process' && state.reason).toContain('could not start')
      const command = await launcher.launch(['bash', '-c', 'echo "parent=$PPID"'], { cwd: '/tmp', env: {} })
      let out = ''
      command.stdout.on('data', (chunk: Buffer) => {
        out += chunk
      })
      await command.closed
      expect(out).toBe(`parent=${process.pid}\n`)
    })

    it('gives the spawner up for in-process spawning when it keeps stopping', async () => {
      const launcher = createCommandLauncher({ spawner: kind })
      const changes: LauncherChange[] = []
      launcher.onChange((change) => changes.push(change))
      for (let stop = 1; stop <= 4; stop++) {
        const state = await launcher.start()
        if (state.mode !== 'spawner') throw new Error(`stop ${stop}: ${state.reason}`)
        process.kill(state.pid, 'SIGKILL')
        await vi.waitFor(() => expect(changes).toHaveLength(stop), REAL_PROCESS_WAIT)
      }
      expect(changes.map((change) => change.event)).toEqual(['restarted', 'restarted', 'restarted', 'fallback'])
      expect(await launcher.start()).toMatchObject({ mode: 'in-process' })
    }, 60_000)
  })
}
