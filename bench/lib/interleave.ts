import type { Measured } from './command-parts.js'
import { type Figure, ratioFigure } from './report.js'
import { summarise, timeSerially } from './serial-latency.js'

/**
 * `floor` and `service` (and any `others`) one after the other, call by call, for `seconds`
 * after a short warm-up of each: the host's load at any moment weighs on all of them alike.
 */
export async function interleave(
  floor: () => Promise<void>,
  service: () => Promise<void>,
  seconds: number,
  others: (() => Promise<void>)[] = [],
): Promise<Measured & { others: number[][] }> {
  const all = [floor, service, ...others]
  for (const run of all) await timeSerially(run, 0.3)
  const latencies: number[][] = all.map(() => [])
  const until = performance.now() + seconds * 1000
  while (performance.now() < until) {
    for (const [index, run] of all.entries()) latencies[index]?.push(...(await timeSerially(run, 0)))
  }
  const [floorLatencies = [], serviceLatencies = [], ...rest] = latencies
  return { floor: floorLatencies, service: serviceLatencies, others: rest }
}

export function serviceFigure(
  name: string,
  baselineName: string,
  measured: Measured,
  atMost: number,
  extra = {},
): Figure {
  const service = summarise(measured.service)
  const floor = summarise(measured.floor)
  return ratioFigure({
    name,
    unit: 'ms',
    value: service.p50,
    baselineName,
    baseline: floor.p50,
    goal: { atMost },
    details: {
      p99Ms: service.p99,
      calls: service.requests,
      floorP99Ms: floor.p99,
      floorRuns: floor.requests,
      ...extra,
    },
  })
}
