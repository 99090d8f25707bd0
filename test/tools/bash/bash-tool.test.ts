// Pins Bash: merged output, exit-code errors, timeout and abort killing the whole process group, validation, progress.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { formatThrownError } from '../../../src/executor/format-thrown-error.js'
import { BashTool, MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE } from '../../../src/tools/bash/bash-tool.js'
import { commandEnvironment } from '../../../src/tools/bash/run-shell-command.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'
import { processGroupExists } from './process-helpers.js'

let workspace: TestWorkspace
beforeEach(async () => {
  workspace = await createTestWorkspace()
})
afterEach(() => workspace.cleanup())

const context = (options: { abortSignal?: AbortSignal | undefined; toolUseId?: string } = {}) =>
  createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot, ...options })

/** Runs a command that prints `$$` (its process group id) first; resolves the id as soon as it shows up. */
function runObserved(command: string, extra: { timeout?: number; abortSignal?: AbortSignal } = {}) {
  let resolvePgid: (pgid: number) => void = () => {}
  const pgid = new Promise<number>((resolve) => (resolvePgid = resolve))
  let seen = ''
  const result = runTool(
    BashTool,
    { command: `echo "pgid=$$"; ${command}`, ...(extra.timeout ? { timeout: extra.timeout } : {}) },
    context({ abortSignal: extra.abortSignal }),
    (progress) => {
      seen += String(progress.output)
      const match = /pgid=(\d+)/.exec(seen)
      if (match) resolvePgid(Number(match[1]))
    },
  )
  return { pgid, result }
}

describe('Bash', () => {
  it('runs in the session cwd and merges stdout and stderr in order', async () => {
    const result = await runTool(BashTool, { command: 'pwd; echo out; echo err >&2; echo out2' }, context())
    expect(result).toMatchObject({ ok: true, data: { output: `${workspace.cwd}\nout\nerr\nout2`, exitCode: 0 } })
  })

  it('turns a non-zero exit into the error text `Exit code N` followed by the output', async () => {
    const result = await runTool(BashTool, { command: 'echo partial; echo oops >&2; exit 3' }, context())
    expect(result.ok).toBe(false)
    expect(formatThrownError((result as { error: unknown }).error)).toBe('Exit code 3\npartial\noops')
  })

  it('streams output as progress', async () => {
    const chunks: string[] = []
    await runTool(BashTool, { command: 'echo one; echo two' }, context(), (progress) =>
      chunks.push(String(progress.output)),
    )
    expect(chunks.join('')).toBe('one\ntwo\n')
  })

  it('kills the whole process group on timeout and says it timed out', async () => {
    const { pgid, result } = runObserved('sleep 1000 & sleep 1000; wait', { timeout: 500 })
    const outcome = await result
    expect(outcome.ok).toBe(false)
    expect((outcome as { message: string }).message).toContain('Command timed out after 500 ms')
    expect((outcome as { message: string }).message).toContain('may have had partial effects')
    const group = await pgid
    await vi.waitFor(() => expect(processGroupExists(group), `process group ${group}`).toBe(false), REAL_PROCESS_WAIT)
  })

  it('kills the whole process group when the call is aborted', async () => {
    const controller = new AbortController()
    const { pgid, result } = runObserved('sleep 1000 & sleep 1000; wait', { abortSignal: controller.signal })
    const group = await pgid
    expect(processGroupExists(group)).toBe(true)
    controller.abort()
    const outcome = await result
    expect(outcome).toMatchObject({ ok: false, message: expect.stringContaining('aborted') })
    await vi.waitFor(() => expect(processGroupExists(group), `process group ${group}`).toBe(false), REAL_PROCESS_WAIT)
  })

  it('kills background jobs left behind when the command exits', async () => {
    const { pgid, result } = runObserved('sleep 1000 > /dev/null 2>&1 & echo started')
    expect(await result).toMatchObject({ ok: true })
    const group = await pgid
    await vi.waitFor(() => expect(processGroupExists(group), `process group ${group}`).toBe(false), REAL_PROCESS_WAIT)
  })

  it("gives commands the minimal environment, not the service's variables", async () => {
    process.env.TOOLEXEC_TEST_SECRET = 'hunter2'
    process.env.SERVICE_TEST_CREDENTIAL = 'hunter3'
    try {
      const command = 'printenv TOOLEXEC_TEST_SECRET SERVICE_TEST_CREDENTIAL || printenv PATH LANG TERM'
      const result = (await runTool(BashTool, { command }, context())) as { data: { output: string } }
      expect(result.data.output).not.toContain('hunter')
      expect(result.data.output.split('\n')).toEqual([
        expect.stringContaining('/usr/bin'),
        expect.any(String),
        expect.any(String),
      ])
    } finally {
      delete process.env.TOOLEXEC_TEST_SECRET
      delete process.env.SERVICE_TEST_CREDENTIAL
    }
  })

  it('passes through the names the operator lists, never TOOLEXEC_*', () => {
    const env = { PATH: '/bin', HOME: '/home/s', NPM_TOKEN: 't', AWS_SECRET: 's', TOOLEXEC_API_KEYS: 'k' }
    expect(commandEnvironment(env, ['NPM_TOKEN', 'TOOLEXEC_API_KEYS', 'UNSET'])).toEqual({
      PATH: '/bin',
      HOME: '/home/s',
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NPM_TOKEN: 't',
    })
  })

  it('validates timeout, empty commands, and refuses to run unsandboxed for several tenants', async () => {
    expect(await runTool(BashTool, { command: 'ls', timeout: 600_001 }, context())).toMatchObject({
      ok: false,
      message: expect.stringContaining('timeout must be at most 600000 ms'),
    })
    expect(await runTool(BashTool, { command: '  ' }, context())).toMatchObject({ ok: false })
    const multiTenant = createTestContext({
      cwd: workspace.cwd,
      blobRoot: workspace.blobRoot,
      environment: { multiTenant: true, sandbox: 'off' },
    })
    expect(await runTool(BashTool, { command: 'ls' }, multiTenant)).toMatchObject({
      ok: false,
      message: MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE,
    })
    await expect(
      BashTool.call({ command: 'ls' }, multiTenant, async () => ({ behavior: 'allow' }), {
        role: 'assistant',
        content: [],
      }),
    ).rejects.toThrow(MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE)
    expect(BashTool.inputSchema.safeParse({ command: 'ls', _simulatedSedEdit: {} }).success).toBe(false)
  })

  it('is read-only and concurrency-safe exactly when the command is', () => {
    expect(BashTool.isReadOnly({ command: 'git status' })).toBe(true)
    expect(BashTool.isConcurrencySafe({ command: 'cat a | wc -l' })).toBe(true)
    expect(BashTool.isReadOnly({ command: 'rm -rf x' })).toBe(false)
    expect(BashTool.isConcurrencySafe({ command: 'echo x > y' })).toBe(false)
    expect(BashTool.internalInputKeys).toEqual(['_simulatedSedEdit'])
  })
})
