// In-process tools for driving a worker against the double deterministically: `probe` answers at once,
// `gated` waits until the test opens its gate (or the worker aborts it), `silent` returns no text at all.
// Each run is logged so a test can tell "executed twice" from "answered twice".
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool'

export interface ProbeRun {
  readonly tool: string
  readonly toolUseId: string
  readonly input: Record<string, unknown>
  outcome: 'running' | 'done' | 'aborted'
}

export interface ProbeTools {
  readonly tools: BetaRunnableTool[]
  readonly runs: ProbeRun[]
  /** Runs of one call, in start order. */
  runsOf(toolUseId: string): ProbeRun[]
  /** Resolves when `toolUseId` has started `count` runs. */
  started(toolUseId: string, count?: number): Promise<void>
  /** Resolves when `count` runs of `toolUseId` have ended (done or aborted). */
  ended(toolUseId: string, count?: number): Promise<void>
  /** Lets every waiting and future `gated` run finish. */
  openGate(): void
}

export function probeTools(): ProbeTools {
  const runs: ProbeRun[] = []
  const waiters = new Set<() => void>()
  let openGate: () => void = () => {}
  const gate = new Promise<void>((resolve) => {
    openGate = resolve
  })

  /** Resolves once `holds` is true, checked now and whenever a run starts or ends. */
  function until(holds: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!holds()) return
        waiters.delete(check)
        resolve()
      }
      waiters.add(check)
      check()
    })
  }

  function tool(name: string, run: (input: Record<string, unknown>, signal?: AbortSignal) => Promise<string>) {
    return {
      type: 'custom',
      name,
      description: `probe tool ${name}`,
      input_schema: { type: 'object', properties: {} },
      parse: (content: unknown) => content as Record<string, unknown>,
      async run(input: Record<string, unknown>, context?: { toolUse: { id: string }; signal?: AbortSignal | null }) {
        const record: ProbeRun = { tool: name, toolUseId: context?.toolUse.id ?? '', input, outcome: 'running' }
        runs.push(record)
        for (const wake of [...waiters]) wake()
        try {
          const text = await run(input, context?.signal ?? undefined)
          record.outcome = 'done'
          return text
        } catch (error) {
          record.outcome = 'aborted'
          throw error
        } finally {
          for (const wake of [...waiters]) wake()
        }
      },
    } as BetaRunnableTool
  }

  return {
    runs,
    tools: [
      tool('probe', async (input) => `probe ${JSON.stringify(input)}`),
      tool('gated', async (input, signal) => {
        await new Promise<void>((resolve, reject) => {
          gate.then(resolve)
          signal?.addEventListener('abort', () => reject(new Error('aborted by the worker')), { once: true })
        })
        return `gated ${JSON.stringify(input)}`
      }),
      tool('silent', async () => ''),
    ],
    runsOf: (toolUseId) => runs.filter((run) => run.toolUseId === toolUseId),
    started: (toolUseId, count = 1) => until(() => runs.filter((run) => run.toolUseId === toolUseId).length >= count),
    ended: (toolUseId, count = 1) =>
      until(() => runs.filter((run) => run.toolUseId === toolUseId && run.outcome !== 'running').length >= count),
    openGate: () => openGate(),
  }
}
