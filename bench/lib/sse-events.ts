/**
 * Server-Sent Events found in a body's bytes as they come, reading only what the SSE bench keeps:
 * each event's `id` and, when asked, its `data`. An event is dispatched at its blank line when it
 * had a `data` line, with the `id` it carried (as eventsource-parser does); comments and the
 * other fields are skipped without making strings, and a line cut across reads is carried to the
 * next. Lines end in LF or CRLF (the service writes LF; a lone CR is not a line end here).
 * docs/adr/0600-the-sse-bench-reads-its-streams-from-raw-sockets.md.
 */

const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const SPACE = 0x20

export class SseEvents {
  /** The bytes of a line cut at the end of the last range, if any. */
  private partial: Buffer | undefined
  private id: string | undefined
  /** The current event's `data` values as ranges of the reads (decoded only if asked). */
  private readonly dataBuffers: Buffer[] = []
  private readonly dataStarts: number[] = []
  private readonly dataEnds: number[] = []

  /** `event` runs at each event's end, with its `id`; `data()` is its data while it runs. */
  constructor(private readonly event: (id: string | undefined) => void) {}

  /** The dispatched event's `data` (its lines joined by LF); valid inside `event`. */
  data(): string {
    let text = ''
    for (const [index, buffer] of this.dataBuffers.entries())
      text += (index > 0 ? '\n' : '') + buffer.toString('utf8', this.dataStarts[index], this.dataEnds[index])
    return text
  }

  /**
   * Copies what is kept of the last read (a cut line, the data of an event not yet ended): the
   * reader reads every stream into one buffer, so a read's bytes are gone at the next read.
   */
  keep(): void {
    if (this.partial !== undefined) this.partial = Buffer.from(this.partial)
    // Most reads end at an event's end: nothing to copy, no iterator made.
    for (let index = 0; index < this.dataBuffers.length; index++) {
      const kept = Buffer.from(
        (this.dataBuffers[index] as Buffer).subarray(this.dataStarts[index], this.dataEnds[index]),
      )
      this.dataBuffers[index] = kept
      this.dataStarts[index] = 0
      this.dataEnds[index] = kept.length
    }
  }

  /** Body bytes `buffer[start, end)`. */
  feed(buffer: Buffer, start: number, end: number): void {
    let at = start
    if (this.partial !== undefined) {
      const lf = buffer.indexOf(LF, at)
      if (lf < 0 || lf >= end) {
        this.partial = Buffer.concat([this.partial, buffer.subarray(at, end)])
        return
      }
      const line = Buffer.concat([this.partial, buffer.subarray(at, lf)])
      this.partial = undefined
      this.line(line, 0, line.length)
      at = lf + 1
    }
    while (at < end) {
      const lf = buffer.indexOf(LF, at)
      if (lf < 0 || lf >= end) {
        this.partial = buffer.subarray(at, end)
        return
      }
      this.line(buffer, at, lf)
      at = lf + 1
    }
  }

  /** One line, `buffer[start, end)` without its LF. */
  private line(buffer: Buffer, start: number, end: number): void {
    if (end > start && buffer[end - 1] === CR) end -= 1
    if (end === start) {
      this.dispatch()
      return
    }
    const first = buffer[start]
    if (first === 0x69 /* i */ && buffer[start + 1] === 0x64 /* d */) {
      const value = valueAt(buffer, start + 2, end)
      if (value >= 0) this.id = buffer.toString('utf8', value, end)
    } else if (
      first === 0x64 /* d */ &&
      buffer[start + 1] === 0x61 /* a */ &&
      buffer[start + 2] === 0x74 /* t */ &&
      buffer[start + 3] === 0x61 /* a */
    ) {
      const value = valueAt(buffer, start + 4, end)
      if (value >= 0) {
        this.dataBuffers.push(buffer)
        this.dataStarts.push(value)
        this.dataEnds.push(end)
      }
    }
  }

  private dispatch(): void {
    if (this.dataBuffers.length > 0) this.event(this.id)
    this.id = undefined
    this.dataBuffers.length = 0
    this.dataStarts.length = 0
    this.dataEnds.length = 0
  }
}

/**
 * Where a field's value starts when its name ends at `at`: after the colon and one space, or at
 * the line's end for a line that is only the name; -1 when the name goes on (`idx: …` is not `id`).
 */
function valueAt(buffer: Buffer, at: number, end: number): number {
  if (at === end) return end
  if (buffer[at] !== COLON) return -1
  return buffer[at + 1] === SPACE && at + 1 < end ? at + 2 : at + 1
}
