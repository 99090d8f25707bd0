// Pins the one table of figures: docs/performance.md shows exactly what bench/results/latest.json
// holds, so no document restates a figure that a later run changed (docs/adr/0284-review-findings-answered.md).
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { type BenchReport, renderBenchTable, withBenchTable } from '../../bench/lib/report.js'

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')

it('docs/performance.md carries the table of bench/results/latest.json', () => {
  const document = read('docs/performance.md')
  const report = JSON.parse(read('bench/results/latest.json')) as BenchReport
  expect(document).toBe(withBenchTable(document, renderBenchTable(report)))
})
