// Pins docs/adr/README.md to the records: every decision file is listed with its number, title
// and current status, so a new or superseded record cannot go unindexed (scripts/adr-index.ts).
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { renderIndex } from '../../scripts/adr-index.js'

it('docs/adr/README.md is the index the records give', () => {
  const committed = readFileSync(new URL('../../docs/adr/README.md', import.meta.url), 'utf8')
  expect(committed, 'run npx tsx scripts/adr-index.ts').toBe(renderIndex())
})
