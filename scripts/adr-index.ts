/**
 * Writes docs/adr/README.md, the index of the decision records, from the records themselves:
 * number, title, status and the first sentence of each decision, grouped by area. `--check`
 * fails when the committed index differs (test/docs/adr-index.test.ts runs it in `npm test`).
 *
 *   npx tsx scripts/adr-index.ts [--check]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ADR_DIRECTORY = fileURLToPath(new URL('../docs/adr/', import.meta.url))
const INDEX = path.join(ADR_DIRECTORY, 'README.md')

/** Areas by number: the records are numbered in blocks per area. */
const AREAS: ReadonlyArray<readonly [first: number, title: string]> = [
  [1, 'The engine: scheduling, results, error texts'],
  [10, 'Results and blobs'],
  [20, 'Built-in tools, shell parsing, paths'],
  [30, 'Runs, the API and state'],
  [40, 'Permissions and hooks'],
  [50, 'MCP'],
  [60, 'The house: layout, types, naming'],
  [90, 'Security'],
  [110, 'Scale-out on Redis'],
  [120, 'Reliability under load and faults'],
  [130, 'The API surface, operations and the client tools'],
  [150, 'Performance'],
  [190, 'The run core, tools that describe themselves, store backends'],
  [230, 'The edges of HTTP and hardening'],
  [250, 'Approvals and the audit trail'],
  [270, 'Deployments and fidelity'],
]

type Record = { file: string; number: number; title: string; status: string; summary: string }

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const end = flat.search(/\.(\s|$)/)
  const sentence = end === -1 ? flat : flat.slice(0, end + 1)
  return sentence.length > 160 ? `${sentence.slice(0, 157)}…` : sentence
}

function readRecord(file: string): Record {
  const text = readFileSync(path.join(ADR_DIRECTORY, file), 'utf8')
  const heading = /^# (\d+)\. (.+)$/m.exec(text)
  if (!heading) throw new Error(`${file}: the first line must be "# N. Title"`)
  const status = /^Status: (.+)$/m.exec(text)?.[1]
  if (!status) throw new Error(`${file}: no "Status:" line`)
  const decision = /\n## Decision\n+([\s\S]*?)(?:\n## |(?![\s\S]))/.exec(text)?.[1]
  const body = decision ?? text.split('\n').slice(3).join('\n')
  const summary = firstSentence(body.replace(/^[-*] /gm, '').replace(/\|/g, '\\|'))
  return { file, number: Number(heading[1]), title: heading[2]!, status, summary }
}

export function renderIndex(): string {
  const records = readdirSync(ADR_DIRECTORY)
    .filter((file) => /^\d{4}-.+\.md$/.test(file))
    .sort()
    .map(readRecord)
  const lines = [
    '# Decision records',
    '',
    'One file per decision, numbered in blocks by area. A record that is superseded or moved says so',
    'in its status. Generated from the records by `npx tsx scripts/adr-index.ts`; a test fails when',
    'this index is out of date.',
    '',
  ]
  AREAS.forEach(([first, title], index) => {
    const next = AREAS[index + 1]?.[0] ?? Number.POSITIVE_INFINITY
    const inArea = records.filter((record) => record.number >= first && record.number < next)
    if (inArea.length === 0) return
    lines.push(`## ${title}`, '', '| # | Decision | Status | In one line |', '| --- | --- | --- | --- |')
    for (const record of inArea)
      lines.push(
        `| ${String(record.number).padStart(4, '0')} | [${record.title.replace(/\|/g, '\\|')}](${record.file}) | ${record.status.replace(/\|/g, '\\|')} | ${record.summary} |`,
      )
    lines.push('')
  })
  return lines.join('\n')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const index = renderIndex()
  if (process.argv.includes('--check')) {
    if (readFileSync(INDEX, 'utf8') !== index) {
      console.error('docs/adr/README.md is out of date: run npx tsx scripts/adr-index.ts')
      process.exit(1)
    }
  } else writeFileSync(INDEX, index)
}
