// Pins the warm sandbox pool (docs/adr/0390-warm-sandboxes.md) with real bubblewrap: a command
// takes a sandbox set up ahead for its own session's layout, never one used before, never one of
// another session; an idle pool has no runnable process; bounds hold; off is the cold path.

import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BashTool } from '../../../src/tools/bash/bash-tool.js'
import { commandLauncher } from '../../../src/tools/bash/launch-command.js'
import { detectSandbox } from '../../../src/tools/bash/sandbox.js'
import { type WarmOwner, warmSandboxes } from '../../../src/tools/bash/warm-sandboxes.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { createTestContext, type TestWorkspace, useTestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'
import { liveGroupMembers, processesMatching, processGroupExists, uniqueSleepMarker } from './process-helpers.js'

const detected = detectSandbox('auto')
const ON = { perSession: 2, perTenant: 8, perInstance: 32, idleMs: 60_000 }

function context(
  workspace: TestWorkspace,
  owner: WarmOwner = { tenant: 'tenant-a', sessionId: 'session-1' },
  options: { additionalWorkingDirectories?: string[]; abortSignal?: AbortSignal } = {},
) {
  return {
    ...createTestContext({
      cwd: workspace.cwd,
      blobRoot: workspace.blobRoot,
      tenant: owner.tenant,
      environment: { sandbox: 'bwrap', multiTenant: true },
      ...options,
    }),
    sessionId: owner.sessionId,
  }
}

async function bash(ctx: ReturnType<typeof context>, command: string, timeout?: number) {
  return runTool(BashTool, { command, ...(timeout ? { timeout } : {}) }, ctx)
}

/** A session's first two commands: the second fills its pool. */
async function prime(ctx: ReturnType<typeof context>) {
  await bash(ctx, 'true')
  await bash(ctx, 'true')
}

const output = (result: Awaited<ReturnType<typeof bash>>) => (result as { data: { output: string } }).data.output

/** `command` run cold (the pool off), then the pool on and session-1's two sandboxes ready. */
async function coldThenWarmed(workspace: TestWorkspace, command: string) {
  warmSandboxes.configure({ ...ON, perSession: 0 })
  const cold = await bash(context(workspace), command)
  warmSandboxes.configure(ON)
  const ctx = context(workspace)
  await prime(ctx)
  await warmed({ tenant: 'tenant-a', sessionId: 'session-1' }, 2)
  return { cold, ctx }
}

/** The pool on, and session-1 of tenant-a primed with its two sandboxes ready. */
async function sessionWithTwoWarm() {
  warmSandboxes.configure(ON)
  const workspace = await useTestWorkspace()
  const owner = { tenant: 'tenant-a', sessionId: 'session-1' }
  const ctx = context(workspace, owner)
  await prime(ctx)
  return { workspace, owner, ctx, pids: await warmed(owner, 2) }
}

/** Ready sandboxes of `owner`, none still being set up anywhere. */
async function warmed(owner: WarmOwner, count: number): Promise<number[]> {
  return vi.waitFor(() => {
    const pids = warmSandboxes.pids(owner)
    if (pids.length !== count || warmSandboxes.state().starting !== 0) throw new Error(`${pids.length} of ${count}`)
    return pids
  }, REAL_PROCESS_WAIT)
}

type Proc = { pid: number; ppid: number; state: string; name: string }
async function allProcesses(): Promise<Proc[]> {
  const found: Proc[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    if (stat === '') continue
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const [state = '', ppid = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    found.push({ pid: Number(entry), ppid: Number(ppid), state, name })
  }
  return found
}

/** `pid` and every process below it. */
async function tree(pid: number): Promise<Proc[]> {
  const processes = await allProcesses()
  const result = processes.filter((p) => p.pid === pid)
  for (let i = 0; i < result.length; i++) {
    result.push(...processes.filter((p) => p.ppid === (result[i] as Proc).pid))
  }
  return result
}

describe.skipIf(detected.sandbox !== 'bwrap')(`warm sandboxes (${detected.reason})`, () => {
  afterEach(() => {
    warmSandboxes.configure({ ...ON, perSession: 0 })
  })

  it('a command takes a warm sandbox, and the next command another one: nothing is reused', async () => {
    warmSandboxes.configure(ON)
    const workspace = await useTestWorkspace()
    const ctx = context(workspace)
    const before = warmSandboxes.state()
    // A session's first command finds none (a miss) and leaves the pool empty: a run of one
    // command would leave sandboxes nobody takes. The second, a miss too, fills it.
    expect(output(await bash(ctx, 'echo cold'))).toBe('cold')
    expect(warmSandboxes.state()).toMatchObject({ misses: before.misses + 1, starting: 0, ready: 0 })
    expect(output(await bash(ctx, 'echo cold again'))).toBe('cold again')
    expect(warmSandboxes.state().misses).toBe(before.misses + 2)
    const [first, second] = await warmed({ tenant: 'tenant-a', sessionId: 'session-1' }, 2)
    const one = output(await bash(ctx, 'echo first > /tmp/marker; cat /tmp/marker; readlink /proc/self/ns/mnt'))
    const two = output(await bash(ctx, 'cat /tmp/marker 2>&1; readlink /proc/self/ns/mnt'))
    expect(warmSandboxes.state().hits).toBe(before.hits + 2)
    expect(one.split('\n')[0]).toBe('first')
    // The second command's /tmp lacks the first's file and its mount namespace is another: a sandbox of its own.
    expect(two.split('\n')[0]).toContain('No such file or directory')
    expect(two.split('\n')[1]).toMatch(/^mnt:\[\d+\]$/)
    expect(two.split('\n')[1]).not.toBe(one.split('\n')[1])
    // Each ran in one of the two sandboxes set up ahead; both are gone, and new ones replace them.
    await vi.waitFor(() => {
      expect(processGroupExists(first as number)).toBe(false)
      expect(processGroupExists(second as number)).toBe(false)
    }, REAL_PROCESS_WAIT)
    const refilled = await warmed({ tenant: 'tenant-a', sessionId: 'session-1' }, 2)
    expect(refilled).not.toContain(first)
    expect(refilled).not.toContain(second)
  })

  it('runs the command as a cold start does: cwd, environment, stdin, exit code, merged output', async () => {
    const workspace = await useTestWorkspace()
    // Several lines, a backslash, trailing blanks and newlines: the command arrives byte for byte.
    const command =
      "pwd; env | sort; cat; echo err >&2\n  printf '[%s]\\n' 'a\\b  '  \n\nls -l /proc/self/fd | tail -n +2 | wc -l; exit 3\n\n"
    const { cold, ctx } = await coldThenWarmed(workspace, command)
    const hits = warmSandboxes.state().hits
    const warm = await bash(ctx, command)
    expect(warmSandboxes.state().hits).toBe(hits + 1)
    expect(warm).toEqual(cold)
    expect(warm).toMatchObject({ ok: false })
  })

  it('runs a long command of quotes, over one read block, and a short one, byte for byte (docs/adr/0530)', async () => {
    const workspace = await useTestWorkspace()
    // A long command reaches a shell reading its script as one quoted line: quotes of every
    // kind, a `'\''` of its own, and over 8 KiB so that the line spans several of dash's reads.
    const lines = Array.from({ length: 400 }, (_, i) => `printf '%s\\n' 'l${i}' "it's" 'x'\\''y' "$0"`)
    const command = `echo 'a'"'"'b' $'x\\'y' 'q'\\''q'\n${lines.join('\n')}\necho "$#" 'end' `
    expect(command.length).toBeGreaterThan(8192)
    const { cold, ctx } = await coldThenWarmed(workspace, command)
    const hits = warmSandboxes.state().hits
    const warm = await bash(ctx, command)
    expect(warmSandboxes.state().hits).toBe(hits + 1)
    expect(warm).toMatchObject({ ok: true })
    expect((warm as { data: unknown }).data).toEqual((cold as { data: unknown }).data)
    expect(output(warm)).toMatch(/^a'b x'y q'q\nl0\nit's\nx'y\nbash\n[\s\S]*l399\nit's\nx'y\nbash\n0 end$/)
    // A short command is read as it is: a first line `s` of its own is its own, not a mode.
    await warmed({ tenant: 'tenant-a', sessionId: 'session-1' }, 2)
    const short = await bash(ctx, 's\necho short')
    expect(warmSandboxes.state().hits).toBe(hits + 2)
    expect(output(short)).toBe('bash: line 1: s: command not found\nshort')
  })

  it("never gives a session another session's sandbox: a path bound only for A is absent in B", async () => {
    warmSandboxes.configure(ON)
    const workspace = await useTestWorkspace()
    await writeFile(path.join(workspace.extra, 'only-a.txt'), 'a')
    const a = { tenant: 'tenant-a', sessionId: 'session-a' }
    const b = { tenant: 'tenant-a', sessionId: 'session-b' }
    const ctxA = context(workspace, a, { additionalWorkingDirectories: [workspace.extra] })
    const ctxB = context(workspace, b)
    await prime(ctxA)
    await prime(ctxB)
    const poolA = await warmed(a, 2)
    await warmed(b, 2)
    const hits = warmSandboxes.state().hits
    const seen = output(await bash(ctxB, `cat ${path.join(workspace.extra, 'only-a.txt')} 2>&1; true`))
    expect(seen).toContain('No such file or directory')
    expect(output(await bash(ctxA, `cat ${path.join(workspace.extra, 'only-a.txt')}`))).toBe('a')
    expect(warmSandboxes.state().hits).toBe(hits + 2)
    // B's command took none of A's: one of A's is left once the one A's command took is reaped
    // (bubblewrap's end is the spawner's to reap, docs/adr/0473), none if B had taken the other.
    await vi.waitFor(() => expect(poolA.filter((pid) => processGroupExists(pid))).toHaveLength(1), REAL_PROCESS_WAIT)
  })

  it('a changed layout discards the session’s sandboxes of the old one', async () => {
    warmSandboxes.configure(ON)
    const workspace = await useTestWorkspace()
    const owner = { tenant: 'tenant-a', sessionId: 'session-1' }
    await prime(context(workspace, owner))
    const old = await warmed(owner, 2)
    const { hits, discarded } = warmSandboxes.state()
    const wider = context(workspace, owner, { additionalWorkingDirectories: [workspace.extra] })
    expect(output(await bash(wider, `ls -d ${workspace.extra}`))).toBe(workspace.extra)
    expect(warmSandboxes.state()).toMatchObject({ hits, discarded: discarded + 2 })
    await vi.waitFor(() => expect(old.filter((pid) => processGroupExists(pid))).toEqual([]), REAL_PROCESS_WAIT)
  })

  it('a working directory made again at the same path is not the one a warm sandbox bound', async () => {
    warmSandboxes.configure(ON)
    const workspace = await useTestWorkspace()
    const owner = { tenant: 'tenant-a', sessionId: 'session-1' }
    await prime(context(workspace, owner))
    await warmed(owner, 2)
    await rm(workspace.cwd, { recursive: true })
    await mkdir(workspace.cwd)
    await writeFile(path.join(workspace.cwd, 'new.txt'), 'the new one')
    const { hits, discarded } = warmSandboxes.state()
    expect(output(await bash(context(workspace, owner), 'cat new.txt'))).toBe('the new one')
    expect(warmSandboxes.state()).toMatchObject({ hits, discarded: discarded + 2 })
  })

  it('an idle pool has no runnable process: each waits in the kernel (state S)', async () => {
    warmSandboxes.configure(ON)
    const workspace = await useTestWorkspace()
    const owner = { tenant: 'tenant-a', sessionId: 'session-1' }
    await prime(context(workspace, owner))
    const pids = await warmed(owner, 2)
    await vi.waitFor(async () => {
      const processes = (await Promise.all(pids.map((pid) => tree(pid)))).flat()
      // bwrap, its init in the PID namespace, and the shell (sh) blocked reading its command.
      expect(processes.map((p) => p.name).sort()).toEqual(['bwrap', 'bwrap', 'bwrap', 'bwrap', 'sh', 'sh'])
      expect(processes.map((p) => p.state)).toEqual(processes.map(() => 'S'))
    }, REAL_PROCESS_WAIT)
  })

  it('a deleted session’s sandboxes are killed', async () => {
    warmSandboxes.configure(ON)
    const workspace = await useTestWorkspace()
    const owner = { tenant: 'tenant-a', sessionId: 'session-1' }
    await prime(context(workspace, owner))
    const pids = await warmed(owner, 2)
    warmSandboxes.discardSession(owner)
    expect(warmSandboxes.pids(owner)).toEqual([])
    await vi.waitFor(() => expect(pids.filter((pid) => processGroupExists(pid))).toEqual([]), REAL_PROCESS_WAIT)
  })

  it('holds the bounds per session, per tenant and per instance', async () => {
    warmSandboxes.configure({ perSession: 2, perTenant: 3, perInstance: 4, idleMs: 60_000 })
    const workspace = await useTestWorkspace()
    const owners = [
      { tenant: 'tenant-a', sessionId: 's1' },
      { tenant: 'tenant-a', sessionId: 's2' },
      { tenant: 'tenant-b', sessionId: 's3' },
      { tenant: 'tenant-b', sessionId: 's4' },
    ]
    for (const owner of owners) {
      await prime(context(workspace, owner))
      await vi.waitFor(() => expect(warmSandboxes.state().starting).toBe(0), REAL_PROCESS_WAIT)
    }
    expect(owners.map((owner) => warmSandboxes.pids(owner).length)).toEqual([2, 1, 1, 0])
    expect(warmSandboxes.state()).toMatchObject({ ready: 4, starting: 0 })
  })

  it('starts and ends a warm command without the spawner: stopped, it holds up neither (docs/adr/0471, 0473)', async () => {
    const workspace = await useTestWorkspace()
    const command = 'echo out; echo err >&2; exit 7'
    const { cold, ctx } = await coldThenWarmed(workspace, command)
    const spawner = await commandLauncher.start()
    if (spawner.mode !== 'spawner') throw new Error(`no spawner here: ${spawner.reason}`)
    const hits = warmSandboxes.state().hits
    process.kill(spawner.pid, 'SIGSTOP')
    let warm: Awaited<ReturnType<typeof bash>>
    try {
      warm = await bash(ctx, command)
    } finally {
      process.kill(spawner.pid, 'SIGCONT')
    }
    expect(warmSandboxes.state().hits).toBe(hits + 1)
    expect(warm).toEqual(cold)
    expect(JSON.stringify(warm)).toContain('out\\nerr')
  })

  it('a background job of a warm command is gone when the call returns, as bubblewrap ends (docs/adr/0473)', async () => {
    warmSandboxes.configure(ON)
    const workspace = await useTestWorkspace()
    const ctx = context(workspace)
    await prime(ctx)
    await warmed({ tenant: 'tenant-a', sessionId: 'session-1' }, 2)
    const hits = warmSandboxes.state().hits
    const marker = uniqueSleepMarker()
    expect(output(await bash(ctx, `sleep ${marker} & echo left`))).toBe('left')
    expect(warmSandboxes.state().hits).toBe(hits + 1)
    expect(await processesMatching(marker)).toEqual([])
  })

  it('refills only once the command that took a sandbox has ended (docs/adr/0470)', async () => {
    const { workspace, owner, ctx } = await sessionWithTwoWarm()
    const hits = warmSandboxes.state().hits
    const running = bash(ctx, 'while [ ! -e go ]; do sleep 0.02; done; echo went')
    await vi.waitFor(() => expect(warmSandboxes.state().hits).toBe(hits + 1), REAL_PROCESS_WAIT)
    // The command runs: its sandbox is not replaced yet, nothing is being set up beside it.
    expect(warmSandboxes.state()).toMatchObject({ ready: 1, starting: 0 })
    await writeFile(path.join(workspace.cwd, 'go'), '')
    expect(output(await running)).toBe('went')
    await warmed(owner, 2)
  })

  it('ends a warm sandbox’s command on timeout with its whole group, as a cold start does', async () => {
    const {
      ctx,
      pids: [taken],
    } = await sessionWithTwoWarm()
    const hits = warmSandboxes.state().hits
    const result = await bash(ctx, 'echo started; sleep 60 & sleep 61; wait', 300)
    expect(warmSandboxes.state().hits).toBe(hits + 1)
    expect(result).toMatchObject({ ok: false })
    expect(JSON.stringify(result)).toContain('Command timed out after 300 ms')
    expect(JSON.stringify(result)).toContain('started')
    // The group holds the sandbox's processes too since bubblewrap makes no session inside
    // (docs/adr/0577): its init may linger as a zombie of the host's pid 1, dead.
    expect(await liveGroupMembers(taken as number)).toEqual([])
  })

  it('off (0 per session): no sandbox is started ahead, nothing is counted', async () => {
    warmSandboxes.configure({ ...ON, perSession: 0 })
    const workspace = await useTestWorkspace()
    const before = warmSandboxes.state()
    expect(output(await bash(context(workspace), 'echo cold'))).toBe('cold')
    expect(warmSandboxes.state()).toMatchObject({ ready: 0, starting: 0, hits: before.hits, misses: before.misses })
  })
})
