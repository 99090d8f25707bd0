// Pins the documentation of the configuration: every variable loadConfig reads appears in
// .env.example and in the configuration table of docs/operations.md (the README links there), and
// neither lists one it does not read.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EnvSchema } from '../../src/config/config-schema.js'
import { loadConfig } from '../../src/config/load-config.js'

// The schema names every variable loadConfig reads, the concurrency cap and the API keys included.
const VARIABLES = Object.keys(EnvSchema.shape).sort()

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')

describe('configuration docs', () => {
  it('.env.example lists every variable, and loads as the defaults', () => {
    const entries = read('.env.example')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.split('=') as [string, string])
    expect(entries.map(([name]) => name).sort()).toEqual(VARIABLES)
    const config = loadConfig(Object.fromEntries(entries), '/srv')
    expect(config).toEqual(loadConfig({}, '/srv'))
  })

  it('docs/operations.md has a row for every variable', () => {
    const rows = [...read('docs/operations.md').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1])
    expect(rows.sort()).toEqual(VARIABLES)
  })
})
