import { writeFileSync } from 'node:fs'

/** One measured figure of the bench report (bench/results/latest.json) and how to print it. */
export type Goal = { atLeast?: number; atMost?: number }

export type Figure = {
  name: string
  unit: string
  value: number
  baselineName?: string
  baseline?: number
  /** value / baseline for throughput figures, the quantity the goal applies to when present. */
  ratio?: number
  goal?: Goal
  met?: boolean
  details?: Record<string, unknown>
}

const round = (value: number) => Math.round(value * 1000) / 1000

/** A throughput figure whose goal is a ratio to a baseline measured in the same run. */
export function ratioFigure(figure: Omit<Figure, 'ratio' | 'met'> & { baseline: number }): Figure {
  const ratio = round(figure.value / figure.baseline)
  const goal = figure.goal ?? {}
  const met =
    (goal.atLeast === undefined || ratio >= goal.atLeast) && (goal.atMost === undefined || ratio <= goal.atMost)
  return { ...figure, value: round(figure.value), baseline: round(figure.baseline), ratio, met }
}

/** Prints the figures, and writes them as JSON to $BENCH_JSON when the suite runner asks (bench/run-all.ts). */
export function emitFigures(figures: readonly Figure[]): void {
  printFigures(figures)
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures))
}

function printFigures(figures: readonly Figure[]): void {
  for (const figure of figures) {
    const against = figure.baseline === undefined ? '' : ` vs ${figure.baseline} (${figure.baselineName})`
    const ratio = figure.ratio === undefined ? '' : ` = ${figure.ratio}×`
    const verdict = figure.met === undefined ? '' : figure.met ? '  met' : '  NOT MET'
    console.log(`${figure.name}: ${round(figure.value)} ${figure.unit}${against}${ratio}${verdict}`)
  }
}
