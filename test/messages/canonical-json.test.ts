import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../src/messages/canonical-json.js'

/** Canonical JSON as it was first written, from the object's entries (docs/adr/0073): the text must not change (docs/adr/0588). */
function fromEntries(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(fromEntries).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${fromEntries(child)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

describe('canonicalJson', () => {
  it('sorts keys at every depth by UTF-16 code units and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: null }, é: 'x', Z: 2, '10': 0, '9': 1 })).toBe(
      '{"10":0,"9":1,"Z":2,"a":{"c":null,"d":[3,{"z":1}]},"b":1,"é":"x"}',
    )
  })

  it('is the same text whatever the key order', () => {
    expect(canonicalJson({ new_string: 'b', file_path: '/f', old_string: 'a' })).toBe(
      canonicalJson({ file_path: '/f', old_string: 'a', new_string: 'b' }),
    )
  })

  it('gives the text it gave from entries, for values of every kind', () => {
    const values: unknown[] = [
      { file_path: '/w/edit-me.txt', old_string: 'alpha', new_string: 'omega\n"quoted"\t' },
      // biome-ignore lint/suspicious/noSparseArray: a hole is one of the kinds a value can hold
      [1, , undefined, () => 1, { k: undefined }, [[]]],
      { date: new Date(0), fn: () => 1, nested: { '': 1, ' ': 2, '\u0000': 3 } },
      {},
      [],
      'text',
      42,
      null,
      undefined,
      true,
    ]
    for (const value of values) expect(canonicalJson(value)).toBe(fromEntries(value))
  })
})
