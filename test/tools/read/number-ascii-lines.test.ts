// Pins numberAsciiLines against the general path (readTextLines, each line numbered, joined):
// the same text, count and "more" wherever it answers, and no answer where the general path's
// decoding, CRLF handling, cut markers or output stop are needed (docs/adr/0517).
import { describe, expect, it } from 'vitest'
import { numberAsciiLines } from '../../../src/tools/read/number-ascii-lines.js'
import { readTextLines } from '../../../src/tools/read/read-text-lines.js'

const MAX_LINE_CHARS = 2_000

async function general(content: string, limit: number) {
  const result = await readTextLines(Buffer.from(content), { offset: 1, limit, maxLineChars: MAX_LINE_CHARS })
  return {
    content: result.lines.map((line) => `${String(line.number).padStart(6)}\t${line.text}`).join('\n'),
    count: result.lines.length,
    hasMore: result.hasMore,
  }
}

const fast = (content: string, limit: number, maxOutputChars = 250_000) =>
  numberAsciiLines(Buffer.from(content), { limit, maxLineChars: MAX_LINE_CHARS, maxOutputChars })

describe('numberAsciiLines', () => {
  const manyLines = Array.from({ length: 1_234 }, (_unused, index) => `line ${index} ${'x'.repeat(index % 7)}`).join(
    '\n',
  )
  const cases: [string, string][] = [
    ['empty', ''],
    ['one line with its newline', 'export const value = 1\n'],
    ['one line without a newline', 'export const value = 1'],
    ['only a newline', '\n'],
    ['empty lines', '\n\n\n'],
    ['a trailing empty line', 'a\nb\n\n'],
    ['tabs and spaces', '\tindented\n  two\t\n'],
    ['a line of exactly the cut', `${'y'.repeat(MAX_LINE_CHARS)}\nz\n`],
    ['a thousand lines and more', `${manyLines}\n`],
    ['a thousand lines, no final newline', manyLines],
  ]
  for (const [name, content] of cases) {
    it(`numbers ${name} as the general path does, at every limit`, async () => {
      for (const limit of [1, 2, 3, 999, 1_000, 1_234, 1_235, 2_000]) {
        expect(fast(content, limit), `limit ${limit}`).toEqual(await general(content, limit))
      }
    })
  }

  it('numbers past six digits as padStart does (no padding, then a tab)', async () => {
    const content = 'a\n'.repeat(1_000_001)
    const numbered = fast(content, 1_000_001, 20_000_000)
    expect(numbered?.content.endsWith('\n1000000\ta\n1000001\ta')).toBe(true)
    expect(numbered).toEqual(await general(content, 1_000_001))
  })

  it('leaves to the general path what needs decoding, CRLF, a cut marker or the output stop', () => {
    expect(fast('café\n', 10)).toBeUndefined()
    expect(fast('\u00ff\n', 10)).toBeUndefined()
    expect(fast('a\r\nb\r\n', 10)).toBeUndefined()
    expect(fast('a\rb\n', 10)).toBeUndefined()
    expect(fast(`${'y'.repeat(MAX_LINE_CHARS + 1)}\n`, 10)).toBeUndefined()
    // '     1\ta\n     2\tb' is 17 characters: the general path stops at a line only past the bound.
    expect(fast('a\nb\n', 10, 17)).toBeDefined()
    expect(fast('a\nb\n', 10, 16)).toBeUndefined()
    // A line past the limit may be long: only the numbered lines are checked.
    expect(fast(`a\n${'y'.repeat(MAX_LINE_CHARS + 1)}\n`, 1)).toEqual({ content: '     1\ta', count: 1, hasMore: true })
  })
})
