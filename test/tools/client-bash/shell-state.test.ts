// Pins the bash client tool's state across shells of one session (docs/adr/0270): two shell
// registries standing for two instances share the saved-state directory; a `cd` and an `export`
// made through one are there on the other, the result says what was not carried over, a stale
// shell takes the newer state, and a restart forgets the state.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createClientBashTool } from '../../../src/tools/client-bash/client-bash-tool.js'
import { createShellRegistry } from '../../../src/tools/client-bash/shell-registry.js'
import { createShellStateFiles, RESTORED_NOTE } from '../../../src/tools/client-bash/shell-state.js'
import { createTestContext, useTestWorkspace } from '../../helpers/tool-context.js'

async function twoInstances() {
  const workspace = await useTestWorkspace()
  const stateRoot = await mkdtemp(path.join(tmpdir(), 'toolexec-shell-state-'))
  onTestFinished(() => rm(stateRoot, { recursive: true, force: true }))
  const context = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
  const instance = () => {
    const shells = createShellRegistry({ idleTtlMs: 60_000, maxShells: 4 })
    onTestFinished(() => shells.closeAll())
    const states = createShellStateFiles((tenant, sessionId) => path.join(stateRoot, tenant, sessionId))
    const tool = createClientBashTool({ shells, states })
    return async (input: { command?: string; restart?: boolean }) => {
      try {
        return (await tool.call(input, context, async () => ({ behavior: 'allow' }), {} as never)).data.output
      } catch (error) {
        const failure = error as Error & { stdout?: string }
        return `ERROR: ${failure.message}${failure.stdout ? `\n${failure.stdout}` : ''}`
      }
    }
  }
  return { workspace, a: instance(), b: instance() }
}

describe('bash client tool state across instances', () => {
  it("carries cd and export to the session's shell on another instance and says what it did not carry", async () => {
    const { workspace, a, b } = await twoInstances()
    expect(await a({ command: "mkdir -p 'my dir' && cd 'my dir' && export GREETING='hi there' && f() { :; }" })).toBe(
      '',
    )
    expect(await b({ command: 'pwd; echo "$GREETING"; type f >/dev/null 2>&1 || echo no-function' })).toBe(
      `${RESTORED_NOTE}\n${workspace.cwd}/my dir\nhi there\nno-function`,
    )
    // Nothing to restore on the next command of the same shell.
    expect(await b({ command: 'cd .. && unset GREETING && export OTHER=2' })).toBe('')
    // A's shell is behind what ran on B: it takes B's state, unset included.
    expect(await a({ command: 'pwd; echo "[$GREETING] $OTHER"' })).toBe(`${RESTORED_NOTE}\n${workspace.cwd}\n[] 2`)
  })

  it('a restart on one instance makes the next command on any instance start fresh; a vanished directory is said', async () => {
    const { workspace, a, b } = await twoInstances()
    expect(await a({ command: 'mkdir -p sub && cd sub && export KEPT=1' })).toBe('')
    expect(await b({ restart: true })).toBe('tool has been restarted.')
    expect(await a({ command: 'pwd; echo "[$KEPT]"' })).toBe(`${workspace.cwd}\n[]`)
    expect(await a({ command: 'mkdir -p gone && cd gone && rmdir ../gone' })).toBe('')
    expect(await b({ command: 'pwd' })).toBe(
      `${RESTORED_NOTE}\n[toolexec: the previous working directory ${workspace.cwd}/gone no longer exists; the shell starts in the session's directory]\n${workspace.cwd}`,
    )
  })
})
