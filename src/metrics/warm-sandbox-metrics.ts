import { Counter, Gauge, type Registry } from 'prom-client'

/** What the warm sandbox pool tells (src/tools/bash/warm-sandboxes.ts), read at scrape time. */
type WarmCounts = { ready: number; starting: number; hits: number; misses: number; discarded: number }

/**
 * The warm sandbox pool in /metrics (docs/adr/0390-warm-sandboxes.md): plain numbers read at
 * scrape time, so a Bash call costs no metric update (docs/adr/0173-gauges-read-at-scrape-time.md).
 */
export function registerWarmSandboxMetrics(registry: Registry, read: () => WarmCounts): void {
  const registers = [registry]
  new Gauge({
    name: 'toolexec_warm_sandboxes',
    help: 'Warm sandboxes by state: ready (set up, waiting for a command) or starting',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = read()
      this.set({ state: 'ready' }, counts.ready)
      this.set({ state: 'starting' }, counts.starting)
    },
  })
  const counter = (name: string, help: string, pick: (counts: WarmCounts) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset()
        this.inc(pick(read()))
      },
    })
  counter('toolexec_warm_sandbox_hits_total', 'Sandboxed Bash commands that took a warm sandbox', (c) => c.hits)
  counter('toolexec_warm_sandbox_misses_total', 'Sandboxed Bash commands that started a cold sandbox', (c) => c.misses)
  counter(
    'toolexec_warm_sandboxes_discarded_total',
    'Warm sandboxes thrown away unused (session deleted or idle, layout changed, shutdown)',
    (c) => c.discarded,
  )
}
