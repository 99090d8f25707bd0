// Pins the sandbox-off PID namespace whose first process is the native spawner's own init
// (native/pid-namespace.c, docs/adr/0555-the-native-spawner-is-the-pid-namespace-init.md): it
// behaves as the setpriv/unshare/init-shell argv did (signals from inside, exit codes, merged
// output, `bash` as $0, nothing left after the call), and a spawner that cannot be the init (the
// Node one, a native build without the feature) is handed that argv instead.
import { describe, expect, it, vi } from 'vitest'
import { detectContainment } from '../../../src/tools/bash/containment.js'
import { commandLauncher, createCommandLauncher } from '../../../src/tools/bash/launch-command.js'
import type { LaunchedCommand } from '../../../src/tools/bash/launched-command.js'
import { nativeSpawnerMissing } from '../../../src/tools/bash/spawner-choice.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { processesMatching } from './process-helpers.js'
import { runCollected } from './run-collected.js'

const containment = detectContainment('off')

async function run(
  command: string,
  options: { timeoutMs?: number; signal?: AbortSignal; env?: Record<string, string> } = {},
) {
  const { result, text } = runCollected(command, { containment: 'pid-namespace', timeoutMs: 60_000, ...options })
  return { ...(await result), text: await text() }
}

async function stdoutOf(command: LaunchedCommand): Promise<string> {
  let text = ''
  command.stdout.on('data', (chunk: Buffer) => {
    text += chunk
  })
  await command.closed
  return text
}

describe.skipIf(containment.containment !== 'pid-namespace' || nativeSpawnerMissing() !== undefined)(
  `the native spawner as the PID namespace's init (${containment.reason})`,
  () => {
    it('is pid 1, and ps shows only the namespace', async () => {
      expect(await commandLauncher.start()).toMatchObject({ mode: 'spawner', spawner: 'native' })
      // The wrapper argv's pid 1 was `sh`; the comm is cut at 15 characters.
      expect(await run('ps -o pid=,comm= ax')).toMatchObject({
        exitCode: 0,
        text: '      1 toolexec-spawne\n      2 ps\n',
      })
    })

    it("ends with the command's `kill $$`, and its `kill -TERM 1` ends the namespace", async () => {
      // No `Terminated` line: that was the init shell's `wait` speaking (docs/adr/0555).
      expect(await run('kill $$; echo survived')).toMatchObject({ exitCode: 143, text: '', timedOut: false })
      const marker = '918.4417'
      const ended = await run(`sleep ${marker} & kill -TERM 1; wait`)
      expect(ended).toMatchObject({ exitCode: 143, timedOut: false, aborted: false })
      await vi.waitFor(async () => expect(await processesMatching(marker)).toEqual([]), REAL_PROCESS_WAIT)
    })

    it('reports exit codes, 128 + a signal, `bash` as $0 and its error texts, the cwd and env given', async () => {
      expect(await run('exit 7')).toMatchObject({ exitCode: 7 })
      expect(await run('kill -KILL $$')).toMatchObject({ exitCode: 137 })
      expect(await run('kill -SEGV $$')).toMatchObject({ exitCode: 139 })
      expect(await run('echo $0; nosuch-918')).toMatchObject({
        exitCode: 127,
        text: 'bash\nbash: line 1: nosuch-918: command not found\n',
      })
      expect(
        await run('pwd; echo "$ONLY"', { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ONLY: 'this' } }),
      ).toMatchObject({ exitCode: 0, text: '/tmp\nthis\n' })
    })

    it('merges stderr into stdout in the order written', async () => {
      const result = await run('for i in 1 2 3; do echo out$i; echo err$i >&2; done')
      expect(result).toMatchObject({ exitCode: 0, text: 'out1\nerr1\nout2\nerr2\nout3\nerr3\n' })
    })

    it('leaves no setsid child behind once the command exits', async () => {
      const marker = '918.2291'
      const result = await run(`setsid sleep ${marker} & until pgrep -x sleep >/dev/null; do :; done; echo started`)
      expect(result).toMatchObject({ exitCode: 0, text: 'started\n' })
      await vi.waitFor(async () => expect(await processesMatching(marker)).toEqual([]), REAL_PROCESS_WAIT)
    })

    it('ends the whole namespace on a cancel or a timeout during a long command', async () => {
      const [detached, child] = ['918.6603', '918.6604']
      const controller = new AbortController()
      const cancelled = run(`setsid sleep ${detached} & sleep ${child}`, { signal: controller.signal })
      await vi.waitFor(async () => {
        expect(await processesMatching(`sleep ${detached}`)).not.toEqual([])
        expect(await processesMatching(`sleep ${child}`)).not.toEqual([])
      }, REAL_PROCESS_WAIT)
      controller.abort()
      expect(await cancelled).toMatchObject({ aborted: true, exitCode: 137 })
      await vi.waitFor(async () => expect(await processesMatching('918.660')).toEqual([]), REAL_PROCESS_WAIT)

      const timedOut = await run(`setsid sleep ${detached} & sleep ${child}`, { timeoutMs: 500 })
      expect(timedOut).toMatchObject({ timedOut: true, exitCode: 137 })
      await vi.waitFor(async () => expect(await processesMatching('918.660')).toEqual([]), REAL_PROCESS_WAIT)
    })

    it('hands a spawner that cannot be the init the wrapper argv: the Node one, whose ready names no feature', async () => {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
      const options = { cwd: '/tmp', env, namespacedArgv: ['sh', '-c', 'echo init'] }
      const node = createCommandLauncher({ spawner: 'node' })
      expect(await node.start()).toMatchObject({ spawner: 'node' })
      expect(await stdoutOf(await node.launch(['sh', '-c', 'echo wrapper'], options))).toBe('wrapper\n')
      const native = createCommandLauncher({ spawner: 'native' })
      expect(await native.start()).toMatchObject({ spawner: 'native' })
      expect(await stdoutOf(await native.launch(['sh', '-c', 'echo wrapper'], options))).toBe('init\n')
      // Without the option, as for bubblewrap and process groups, the argv as given.
      expect(await stdoutOf(await native.launch(['sh', '-c', 'echo wrapper'], { cwd: '/tmp', env }))).toBe('wrapper\n')
    })
  },
)
