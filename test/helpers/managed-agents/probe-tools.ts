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
    started(toolUseId, count = 1) {
      return new Promise((resolve) => {
        const check = () => {
          if (runs.filter((run) => run.toolUseId === toolUseId).length < count) return
          waiters.delete(check)
          resolve()
        }
        waiters.add(check)
        check()
      })
    },
    openGate: () => openGate(),
  }
}
