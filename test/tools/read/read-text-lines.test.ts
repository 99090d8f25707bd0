// Pins readTextLines on a file read whole and on its descriptor, chunk by chunk: the same
// lines, cuts, CRLF handling, offsets and "more" for both (docs/adr/0480).
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readTextLines, type TextLinesOptions } from '../../../src/tools/read/read-text-lines.js'
import { SYNC_IO_LIMIT } from '../../../src/tools/shared/descriptor-io.js'

const directory = mkdtempSync(path.join(tmpdir(), 'read-text-lines-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

let files = 0
/** The lines of `content` as a buffer and through a descriptor; both must agree. */
async function bothWays(content: string | Buffer, options: TextLinesOptions) {
  const file = path.join(directory, `file-${files++}`)
  writeFileSync(file, content)
  const fromBuffer = await readTextLines(Buffer.from(content), options)
  const fd = openSync(file, 'r')
  try {
    expect(await readTextLines(fd, options)).toEqual(fromBuffer)
  } finally {
    closeSync(fd)
  }
  return fromBuffer
}

const all = { offset: 1, limit: 2_000, maxLineChars: 2_000 }

describe('readTextLines', () => {
  it('numbers every line, drops a CRLF line end, and counts a last line without a newline', async () => {
    expect(await bothWays('one\r\ntwo\nthree', all)).toEqual({
      lines: [
        { number: 1, text: 'one', fullLength: 3 },
        { number: 2, text: 'two', fullLength: 3 },
        { number: 3, text: 'three', fullLength: 5 },
      ],
      hasMore: false,
      totalLines: 3,
    })
  })

  it('gives the range asked for and says when more follows', async () => {
    const text = Array.from({ length: 10 }, (_unused, index) => `line ${index + 1}`).join('\n')
    expect(await bothWays(`${text}\n`, { ...all, offset: 4, limit: 2 })).toEqual({
      lines: [
        { number: 4, text: 'line 4', fullLength: 6 },
        { number: 5, text: 'line 5', fullLength: 6 },
      ],
      hasMore: true,
    })
    expect(await bothWays(`${text}\n`, { ...all, offset: 20, limit: 2 })).toEqual({
      lines: [],
      hasMore: false,
      totalLines: 10,
    })
  })

  it('cuts a long line but counts its whole length, across the descriptor chunks', async () => {
    const long = 'é'.repeat(SYNC_IO_LIMIT)
    const result = await bothWays(`${long}\nafter\n`, { ...all, maxLineChars: 5 })
    expect(result.lines).toEqual([
      { number: 1, text: 'ééééé', fullLength: SYNC_IO_LIMIT },
      { number: 2, text: 'after', fullLength: 5 },
    ])
    expect(result.totalLines).toBe(2)
  })

  it('an empty file has no lines', async () => {
    expect(await bothWays('', all)).toEqual({ lines: [], hasMore: false, totalLines: 0 })
  })
})
