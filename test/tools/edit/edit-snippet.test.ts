import { describe, expect, it } from 'vitest'
import { editSnippet } from '../../../src/tools/edit/apply-edit.js'

/** The snippet as the file split into all its lines gives it: what editSnippet must still return (docs/adr/0587). */
function splitSnippet(content: string, firstIndex: number, insertedLength: number, context = 3): string {
  const startLine = content.slice(0, firstIndex).split('\n').length
  const endLine = startLine + content.slice(firstIndex, firstIndex + insertedLength).split('\n').length - 1
  const lines = content.split('\n')
  const from = Math.max(1, startLine - context)
  const to = Math.min(lines.length, endLine + context, from + 40)
  const shown: string[] = []
  for (let number = from; number <= to; number += 1) {
    const line = (lines[number - 1] ?? '').replace(/\r$/, '')
    shown.push(`${String(number).padStart(6)}\t${line.length > 2000 ? `${line.slice(0, 2000)}…` : line}`)
  }
  return shown.join('\n')
}

/** A small deterministic generator: the same cases on every host. */
function generator(seed: number) {
  let state = seed
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state % below
  }
}

const numbered = (pairs: [number, string][]) =>
  pairs.map(([number, line]) => `${String(number).padStart(6)}\t${line}`).join('\n')

describe('editSnippet', () => {
  it('shows three lines each side of the change, numbered as Read numbers them', () => {
    const content = ['a', 'b', 'c', 'd', 'NEW', 'f', 'g', 'h', 'i', 'j'].join('\n')
    const at = content.indexOf('NEW')
    expect(editSnippet(content, at, 3)).toBe(
      numbered([
        [2, 'b'],
        [3, 'c'],
        [4, 'd'],
        [5, 'NEW'],
        [6, 'f'],
        [7, 'g'],
        [8, 'h'],
      ]),
    )
  })

  it('stops at the first and the last line, shows an empty last line, and drops one trailing carriage return', () => {
    expect(editSnippet('NEW\r\nx\r\r\n', 0, 3)).toBe(
      numbered([
        [1, 'NEW'],
        [2, 'x\r'],
        [3, ''],
      ]),
    )
  })

  it('covers the lines of a change spanning several, at most 41 lines, long lines cut', () => {
    const long = 'x'.repeat(2_100)
    const content = `top\n${Array.from({ length: 60 }, (_unused, index) => `line ${index}`).join('\n')}\n${long}`
    const at = content.indexOf('line 0')
    const snippet = editSnippet(content, at, content.indexOf('line 50') - at).split('\n')
    expect(snippet).toHaveLength(41)
    expect(snippet[0]).toBe(`${'1'.padStart(6)}\ttop`)
    expect(snippet[40]).toBe(`${'41'.padStart(6)}\tline 39`)
    expect(
      editSnippet(content, content.length - 5, 5)
        .split('\n')
        .at(-1),
    ).toBe(`${'62'.padStart(6)}\t${'x'.repeat(2_000)}…`)
  })

  it('gives the text the split file gave, for any change in any text', () => {
    const next = generator(23)
    const alphabet = ['a', 'b', '\n', '\r', '\r\n', 'é', ' ']
    for (let round = 0; round < 2_000; round += 1) {
      const length = next(200)
      let content = ''
      while (content.length < length) content += alphabet[next(alphabet.length)]
      const firstIndex = next(content.length + 1)
      const insertedLength = next(content.length - firstIndex + 1)
      const context = next(5)
      expect(editSnippet(content, firstIndex, insertedLength, context)).toBe(
        splitSnippet(content, firstIndex, insertedLength, context),
      )
    }
  })
})
