// Pins the bash client tool: one persistent shell per session (cd and exported variables
// survive), restart kills the whole process tree, a timeout restarts the shell and says so, and
// the reference texts for a restart and a missing command.
import { describe, expect, it, onTestFinished } from 'vitest'
import type { ToolUseContext } from '../../../src/tool/tool.js'
import { clientBashMessages, createClientBashTool } from '../../../src/tools/client-bash/client-bash-tool.js'
import { createShellRegistry } from '../../../src/tools/client-bash/shell-registry.js'
import { createTestContext, useTestWorkspace } from '../../helpers/tool-context.js'

async function setup(timeoutMs = 10_000) {
  const workspace = await useTestWorkspace()
  const shells = createShellRegistry({ idleTtlMs: 60_000, maxShells: 4 })
  onTestFinished(() => shells.closeAll())
  const tool = createClientBashTool({ shells, timeoutMs })
  const context = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
  const use = async (input: { command?: string; restart?: boolean }, on: ToolUseContext = context) => {
    try {
      return (await tool.call(input, on, async () => ({ behavior: 'allow' }), {} as never)).data.output
    } catch (error) {
      const failure = error as Error & { stdout?: string }
      return `ERROR: ${failure.message}${failure.stdout ? `\n${failure.stdout}` : ''}`
    }
  }
  return { workspace, shells, tool, context, use }
}

describe('bash client tool', () => {
  it('keeps cd and exported variables between calls, per session', async () => {
    const { workspace, context, use } = await setup()
    expect(await use({ command: 'mkdir -p sub && cd sub && export GREETING=hello' })).toBe('')
    expect(await use({ command: 'pwd; echo "$GREETING"' })).toBe(`${workspace.cwd}/sub\nhello`)
    const other = { ...context, sessionId: 'session-2' }
    expect(await use({ command: 'pwd; echo "[$GREETING]"' }, other)).toBe(`${workspace.cwd}\n[]`)
  })

  it('merges stderr, reports a non-zero exit, survives a syntax error', async () => {
    const { use } = await setup()
    expect(await use({ command: 'echo out; echo err >&2; false' })).toBe('ERROR: Exit code 1\nout\nerr')
    expect(await use({ command: 'if then' })).toMatch(/^ERROR: Exit code 2\n.*syntax error/s)
    expect(await use({ command: "printf 'no newline'" })).toBe('no newline')
  })

  it('restart: true kills the shell and its children and starts fresh', async () => {
    const { workspace, use } = await setup()
    // A duration no other process on the host uses, so pgrep sees only this test's sleeps.
    const sleep = `sleep 300.${process.pid}${Date.now() % 100_000}`
    await use({ command: `cd /tmp && export X=1 && (${sleep} &) && ${sleep} & echo started` })
    expect(await use({ restart: true })).toBe(clientBashMessages.restarted)
    expect(await use({ command: `pwd; echo "[$X]"; pgrep -f "${sleep}" || echo none` })).toBe(
      `${workspace.cwd}\n[]\nnone`,
    )
  })

  it('a timeout restarts the shell and says so', async () => {
    const { workspace, use } = await setup(500)
    await use({ command: 'cd /tmp' })
    expect(await use({ command: 'echo before; sleep 30' })).toBe(
      'ERROR: timed out: bash has not returned in 1 seconds and must be restarted. The shell has been restarted: the next command runs in a fresh shell (working directory and variables reset).\nbefore',
    )
    expect(await use({ command: 'pwd' })).toBe(workspace.cwd)
  })

  it('an exit ends the shell, says so, and the next call gets a fresh one', async () => {
    const { workspace, use } = await setup()
    await use({ command: 'cd /tmp' })
    expect(await use({ command: 'exit 3' })).toBe(
      'ERROR: bash has exited with returncode 3. The shell has been restarted: the next command runs in a fresh shell.',
    )
    expect(await use({ command: 'pwd' })).toBe(workspace.cwd)
  })

  it('answers a call without a command as the reference does', async () => {
    const { use, tool } = await setup()
    expect(await use({})).toBe(`ERROR: ${clientBashMessages.noCommand}`)
    expect(tool.isConcurrencySafe()).toBe(false)
    expect(tool.apiType).toBe('bash_20250124')
  })
})
