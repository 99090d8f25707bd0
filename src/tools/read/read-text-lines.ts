import { StringDecoder } from 'node:string_decoder'
import { readChunks } from '../shared/descriptor-io.js'

export type TextLinesOptions = {
  /** 1-based number of the first line to return. */
  offset: number
  limit: number
  /** Longer lines are cut to this many characters. */
  maxLineChars: number
}

type TextLine = { number: number; text: string; fullLength: number }

export type TextLines = {
  lines: TextLine[]
  /** Lines after the returned ones exist. */
  hasMore: boolean
  /** Total lines, known only when the file was read to its end. */
  totalLines?: number
}

/**
 * Reads just the lines asked for, streaming: a huge file or a single gigantic line costs no
 * more memory than the lines returned (each capped at `maxLineChars`). Stops reading as soon as
 * one line past the range is seen.
 */
export async function readTextLines(file: Buffer | number, options: TextLinesOptions): Promise<TextLines> {
  const { offset, limit, maxLineChars } = options
  const lastWanted = offset + limit - 1
  const lines: TextLine[] = []
  const decoder = new StringDecoder('utf8')
  // A descriptor is read from its start and left open: the caller owns it. A file already read
  // whole is one chunk (docs/adr/0480-small-files-are-read-synchronously.md).
  const chunks = typeof file === 'number' ? readChunks(file) : [file]
  let number = 1
  let current = ''
  let currentLength = 0
  let sawText = false
  let hasMore = false

  const append = (piece: string) => {
    if (number >= offset && current.length < maxLineChars) current += piece.slice(0, maxLineChars - current.length)
    currentLength += piece.length
  }
  const endLine = () => {
    if (number >= offset) {
      // CRLF files: the `\r` is not shown (Edit matches `\n` old_strings against `\r\n` too).
      const crlf = current.endsWith('\r') && currentLength === current.length
      lines.push({ number, text: crlf ? current.slice(0, -1) : current, fullLength: currentLength - (crlf ? 1 : 0) })
    }
    number += 1
    current = ''
    currentLength = 0
  }

  for await (const chunk of chunks) {
    let text = decoder.write(chunk)
    if (text.length > 0) sawText = true
    while (text.length > 0) {
      if (number > lastWanted) {
        hasMore = true
        break
      }
      const newline = text.indexOf('\n')
      if (newline === -1) {
        append(text)
        break
      }
      append(text.slice(0, newline))
      endLine()
      text = text.slice(newline + 1)
    }
    if (hasMore) break
  }
  if (hasMore) return { lines, hasMore }
  const rest = decoder.end()
  if (rest.length > 0) append(rest)
  // A last line without a trailing newline still counts; an empty file has no lines.
  if (currentLength > 0 && number <= lastWanted) endLine()
  else if (currentLength > 0) return { lines, hasMore: true }
  const totalLines = sawText ? number - 1 : 0
  return { lines, hasMore: false, totalLines }
}
