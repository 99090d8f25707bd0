// Pins where a command runs beside the service (docs/adr/0576-commands-start-in-a-process-group-of-their-own.md,
// 0577, 0578): the native spawner, which has no controlling terminal, gives each command a process
// group of its own in its own session, so under autogroup the commands share the spawner's CPU
// share, lowered to their nice; given a terminal it keeps a session per command. Bubblewrap and the
// PID namespace's init make no session inside either. The session ids are read by the command.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { text } from 'node:stream/consumers'
import { describe, expect, it } from 'vitest'
import { detectContainment } from '../../../src/tools/bash/containment.js'
import { createCommandLauncher } from '../../../src/tools/bash/launch-command.js'
import { createOutputCollector } from '../../../src/tools/bash/output-collector.js'
import { autogroupInForce, lowerAutogroup } from '../../../src/tools/bash/process-priority.js'
import { runShellCommand } from '../../../src/tools/bash/run-shell-command.js'
import { detectSandbox } from '../../../src/tools/bash/sandbox.js'
import { NATIVE_SPAWNER, nativeSpawnerMissing } from '../../../src/tools/bash/spawner-choice.js'

// Fields 5 and 6 of /proc/PID/stat: the process group and the session (0 when outside the reader's PID namespace).
const IDS = 'read -r _ _ _ _ pgid sid _ < /proc/$$/stat; echo $$ $pgid $sid'

type Ids = { pid: number; pgid: number; sid: number }
const parse = (output: string): Ids => {
  const [pid, pgid, sid] = output.trim().split(' ').map(Number)
  return { pid: pid as number, pgid: pgid as number, sid: sid as number }
}

async function idsOf(launcher: ReturnType<typeof createCommandLauncher>): Promise<Ids> {
  const child = await launcher.launch(['sh', '-c', IDS], { cwd: '/tmp', env: {} })
  const [output] = await Promise.all([text(child.stdout), child.closed])
  return parse(output)
}

async function idsThroughRun(options: Pick<Parameters<typeof runShellCommand>[0], 'sandbox' | 'containment'>) {
  const output = createOutputCollector({ thresholdChars: 100_000, openBlob: () => Promise.reject(new Error('none')) })
  const result = await runShellCommand({
    command: IDS,
    cwd: '/tmp',
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    output,
    ...options,
  })
  expect(result.exitCode).toBe(0)
  const collected = await output.result()
  if (collected.spilled) throw new Error('spilled')
  return parse(collected.text)
}

const nativeMissing = nativeSpawnerMissing()
const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', 'import pty, termios'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

describe.skipIf(nativeMissing !== undefined)('the native spawner', () => {
  it("starts a command in a process group of its own inside the spawner's session", async () => {
    const launcher = createCommandLauncher()
    const state = await launcher.start()
    if (state.mode !== 'spawner') throw new Error(state.mode)
    const ids = await idsOf(launcher)
    expect(ids.pgid).toBe(ids.pid)
    expect(ids.sid).not.toBe(ids.pid)
    expect(ids.sid).toBe(state.pid)
    expect(launcher.processes().commandGroups).toBe('process-group')
  })

  it.skipIf(!autogroupInForce())("lowers the spawner session's autogroup to the commands' nice", async () => {
    const launcher = createCommandLauncher({ nice: 10 })
    const state = await launcher.start()
    if (state.mode !== 'spawner') throw new Error(state.mode)
    const { nice, autogroupNice } = launcher.processes()
    expect(autogroupNice).toBe(nice)
    const child = await launcher.launch(['cat', '/proc/self/autogroup'], { cwd: '/tmp', env: {} })
    const [output] = await Promise.all([text(child.stdout), child.closed])
    expect(output).toBe(readFileSync(`/proc/${state.pid}/autogroup`, 'utf8'))
    expect(output).toContain(`nice ${nice}`)
  })

  // A spawner that leads a session with a controlling terminal (a pty python3 opens for it before
  // exec'ing the spawner): `/dev/tty` opens there, so each command keeps a session of its own.
  it.skipIf(!hasPython)('keeps a session per command when it has a controlling terminal', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-tty-'))
    const wrapper = path.join(scratch, 'spawner-with-tty')
    await writeFile(
      wrapper,
      [
        '#!/usr/bin/env python3',
        'import fcntl, os, sys, termios',
        'master, slave = os.openpty()',
        // Held open by the spawner: a pty whose master closes hangs its session up (SIGHUP).
        'os.set_inheritable(master, True)',
        'fcntl.ioctl(slave, termios.TIOCSCTTY, 0)',
        `os.execv(${JSON.stringify(NATIVE_SPAWNER)}, [${JSON.stringify(NATIVE_SPAWNER)}])`,
      ].join('\n'),
    )
    await chmod(wrapper, 0o755)
    try {
      const launcher = createCommandLauncher({ main: wrapper })
      expect(await launcher.start()).toMatchObject({ mode: 'spawner' })
      const ids = await idsOf(launcher)
      expect(ids.sid).toBe(ids.pid)
      expect(launcher.processes().commandGroups).toBe('session')
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  })
})

const containment = detectContainment('off')
describe.skipIf(nativeMissing !== undefined || containment.containment !== 'pid-namespace')(
  'the PID namespace init',
  () => {
    it('makes a group of its own and no session: the session is outside the namespace', async () => {
      const ids = await idsThroughRun({ sandbox: null, containment: 'pid-namespace' })
      expect(ids).toEqual({ pid: 2, pgid: 1, sid: 0 })
    })
  },
)

const sandbox = detectSandbox('auto')
describe.skipIf(sandbox.sandbox !== 'bwrap')('a bubblewrap sandbox', () => {
  it('makes no session inside: the session is outside the sandbox', async () => {
    const ids = await idsThroughRun({
      sandbox: { cwd: '/tmp', writableDirectories: ['/tmp'], readOnlyDirectories: [] },
    })
    expect(ids.sid).toBe(0)
    expect(ids.pgid).toBe(0)
  })
})

describe('the autogroup write', () => {
  it('is retried while the kernel rate-limits it, and says why when refused', async () => {
    const codes = ['EAGAIN', 'EAGAIN']
    const writes: string[] = []
    const write = async (file: string, data: string) => {
      writes.push(`${file} ${data}`)
      const code = codes.shift()
      if (code) throw Object.assign(new Error(code), { code })
    }
    expect(await lowerAutogroup(42, 10, write)).toEqual({ nice: 10, reason: 'set' })
    expect(writes).toEqual(['/proc/42/autogroup 10', '/proc/42/autogroup 10', '/proc/42/autogroup 10'])

    const refused = async () => {
      throw Object.assign(new Error('EACCES'), { code: 'EACCES' })
    }
    expect(await lowerAutogroup(42, 10, refused)).toEqual({ nice: null, reason: 'could not be set (EACCES)' })
  })
})
