// Pins the caps on the bash client tool's persistent shells (docs/adr/0233-shell-caps-per-tenant.md):
// one tenant opening sessions past the caps never ends another tenant's shell, not even an idle
// one, nor any shell running a command (the attack ended a running `sleep; echo done` with exit
// 143 and erased its exports); it may replace its own idle shells, and when it has none it is
// refused with a result that names the limit, while nothing ran.
import { describe, expect, it, onTestFinished } from 'vitest'
import type { ToolUseContext } from '../../../src/tool/tool.js'
import { createClientBashTool } from '../../../src/tools/client-bash/client-bash-tool.js'
import { createShellRegistry } from '../../../src/tools/client-bash/shell-registry.js'
import { createTestContext, useTestWorkspace } from '../../helpers/tool-context.js'

async function setup(maxShells: number, maxShellsPerTenant: number) {
  const workspace = await useTestWorkspace()
  const shells = createShellRegistry({ idleTtlMs: 60_000, maxShells, maxShellsPerTenant })
  onTestFinished(() => shells.closeAll())
  const tool = createClientBashTool({ shells })
  const base = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
  const as = (tenant: string, sessionId: string): ToolUseContext => ({ ...base, tenant, sessionId })
  const use = async (command: string, on: ToolUseContext) => {
    try {
      return (await tool.call({ command }, on, async () => ({ behavior: 'allow' }), {} as never)).data.output
    } catch (error) {
      return `ERROR: ${(error as Error).message}`
    }
  }
  return { shells, as, use }
}

/** Resolves once `condition` holds, looking again after each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve))
}

describe('shell caps', () => {
  it("never ends another tenant's shell, idle or running, whatever one tenant opens", async () => {
    const { shells, as, use } = await setup(4, 4)
    const b = as('tenant-b', 'b-1')
    expect(await use('export KEPT=yes', b)).toBe('')
    const running = use('sleep 1; echo done "$KEPT"', b)
    const idle = as('tenant-b', 'b-2')
    expect(await use('export IDLE=still', idle)).toBe('')
    // Tenant A opens sessions past the instance cap: it fills the two free places, then is refused.
    const answers: string[] = []
    for (let index = 0; index < 6; index++) answers.push(await use('true', as('tenant-a', `a-${index}`)))
    expect(answers.slice(0, 2)).toEqual(['', ''])
    // Its own idle shells make room for its next ones: A never holds more than the free places.
    expect(answers.slice(2)).toEqual(['', '', '', ''])
    expect(shells.size).toBe(4)
    expect(await running).toBe('done yes')
    expect(await use('echo "$IDLE"', idle)).toBe('still')
  })

  it('refuses a new shell past the caps when the tenant has no idle shell of its own, and says which cap', async () => {
    const { shells, as, use } = await setup(3, 2)
    const first = use('sleep 1; echo one', as('tenant-a', 'a-1'))
    const second = use('sleep 1; echo two', as('tenant-a', 'a-2'))
    // Both of A's shells run a command (registered, busy until their command ends): a third is refused.
    await until(() => shells.size === 2)
    expect(await use('echo three', as('tenant-a', 'a-3'))).toMatch(
      /^ERROR: The command did not run: no shell could be started: this tenant has 2 shells running commands \(TOOLEXEC_MAX_SHELLS_PER_TENANT=2\)/,
    )
    // Another tenant takes the last place of the instance; then the instance cap refuses.
    const c = use('sleep 1; echo c', as('tenant-c', 'c-1'))
    await until(() => shells.size === 3)
    expect(await use('echo d', as('tenant-d', 'd-1'))).toMatch(/TOOLEXEC_MAX_SHELLS=3/)
    expect(await Promise.all([first, second, c])).toEqual(['one', 'two', 'c'])
  })
})
