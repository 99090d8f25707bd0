import { readFileSync, writeFileSync } from 'node:fs'

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
  // A figure without a goal (a ceiling, a floor of its own) has no verdict.
  if (figure.goal === undefined)
    return { ...figure, value: round(figure.value), baseline: round(figure.baseline), ratio }
  const goal = figure.goal
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

/** The whole report `npm run bench` writes to bench/results/latest.json. */
export type BenchReport = {
  date: string
  node: string
  machine: { cpu: string; cores: number; memoryGb: number; platform: string; loadAverage: number[] }
  options: { duration: number; soakSeconds: number; note: string }
  figures: Figure[]
}

/** The report as the markdown table docs/performance.md shows. */
export function renderBenchTable(report: BenchReport): string {
  const cell = (value: number | undefined, unit = '') => (value === undefined ? '' : `${value}${unit}`)
  const goal = (figure: Figure) =>
    figure.goal?.atLeast !== undefined
      ? `≥ ${figure.goal.atLeast}`
      : figure.goal?.atMost !== undefined
        ? `≤ ${figure.goal.atMost}`
        : ''
  const lines = [
    `${report.machine.cpu}, ${report.machine.cores} cores, node ${report.node}, ${report.date.slice(0, 10)}; ${report.options.note}`,
    '',
    '| Figure | Measured | Baseline | Ratio | Goal | Met |',
    '| --- | --- | --- | --- | --- | --- |',
    ...report.figures.map(
      (figure) =>
        `| ${figure.name} | ${figure.value} ${figure.unit} | ${cell(figure.baseline)}${figure.baselineName ? ` (${figure.baselineName})` : ''} | ${cell(figure.ratio, '×')} | ${goal(figure)} | ${figure.met === undefined ? '' : figure.met ? 'yes' : '**no**'} |`,
    ),
  ]
  return lines.join('\n')
}

const TABLE_START = '<!-- bench-table: written by npm run bench from bench/results/latest.json -->'
const TABLE_END = '<!-- /bench-table -->'

/** `document` with the text between the table markers replaced by `table`. */
export function withBenchTable(document: string, table: string): string {
  const start = document.indexOf(TABLE_START)
  const end = document.indexOf(TABLE_END)
  if (start === -1 || end < start) throw new Error(`the bench table markers are missing: ${TABLE_START}`)
  return `${document.slice(0, start + TABLE_START.length)}\n${table}\n${document.slice(end)}`
}

/** Writes the report's table into docs/performance.md, the one place the docs show figures. */
export function writePerformanceTable(report: BenchReport): void {
  const file = new URL('../../docs/performance.md', import.meta.url)
  writeFileSync(file, withBenchTable(readFileSync(file, 'utf8'), renderBenchTable(report)))
}
