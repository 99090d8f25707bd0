// Pins the event documents to the one source of event shapes (src/events/run-event.ts): the table
// of docs/events.md and the list of docs/design.md name every event type with exactly its fields
// (`?` for optional ones), and nothing that does not exist, as errors and config are pinned.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { RunEventBodySchema } from '../../src/events/run-event.js'

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')

/** `type` → its fields, optional ones with a trailing `?`, sorted: from the schema. */
const fromSchema = Object.fromEntries(
  RunEventBodySchema.options.map((option) => {
    const { type, ...fields } = option.shape
    const names = Object.entries(fields).map(([name, schema]) => (schema instanceof z.ZodOptional ? `${name}?` : name))
    return [type.value, names.sort()]
  }),
)

describe('event docs', () => {
  it('docs/events.md tables every event type with its fields', () => {
    const section = read('docs/events.md').split('## Events')[1]!.split('\n## ')[0]!
    const rows = [...section.matchAll(/^\| `([a-z]+\.[a-z]+)` \| ([^|]*) \|/gm)]
    const documented = Object.fromEntries(
      rows.map(([, type, fields]) => [
        type,
        // Values in parentheses (`decision` (`allow`/`deny`)) are not fields.
        [...fields!.replace(/\([^)]*\)/g, '').matchAll(/`([a-z_]+\??)`/g)].map((match) => match[1]!).sort(),
      ]),
    )
    expect(documented).toEqual(fromSchema)
  })

  it('docs/design.md lists every event type with its fields', () => {
    const lines = [...read('docs/design.md').matchAll(/^ {2}- `([a-z.]+) \{([^}]*)\}`/gm)]
    const documented = Object.fromEntries(
      lines.map(([, type, fields]) => [
        type,
        fields!
          .split(',')
          .map((field) => field.trim())
          .filter(Boolean)
          .sort(),
      ]),
    )
    expect(documented).toEqual(fromSchema)
  })
})
