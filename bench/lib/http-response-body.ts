/**
 * An HTTP/1.1 response read from a socket's bytes as they come: the status line checked, the
 * headers skipped, and the body handed on as ranges of the reads themselves (no copy, no string),
 * with chunked framing removed when the head says `transfer-encoding: chunked`. The SSE bench's
 * reader uses it in place of Node's HTTP client, whose per-chunk cost on 100 streams took the
 * core the service writes on (docs/adr/0600-the-sse-bench-reads-its-streams-from-raw-sockets.md).
 * Every byte is looked at once, in a state machine that carries nothing but a number across reads,
 * so a size line or the CRLF after a chunk may be cut anywhere.
 */

// What the reader is in the middle of (plain numbers: compared per byte).
const HEAD = 0
const SIZE = 1
const EXTENSION = 2
const DATA = 3
const AFTER_DATA = 4
const IDENTITY = 5
const ENDED = 6

const LF = 0x0a
const CR = 0x0d

export type ResponseHandlers = {
  /** The head arrived: its status code. */
  head: (status: number) => void
  /** Body bytes `buffer[start, end)`: a range of the read, valid until the next read. */
  body: (buffer: Buffer, start: number, end: number) => void
  /** The chunked body's last chunk arrived (a body without chunked framing ends with its socket). */
  end: () => void
}

/** The value of a hex digit, or -1. */
function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}

export class HttpResponseBody {
  private state = HEAD as number
  /** The head's bytes until its blank line (a head cut across reads is joined). */
  private head: Buffer | undefined
  /** Bytes left in the current chunk, or the size being read. */
  private count = 0

  constructor(private readonly on: ResponseHandlers) {}

  /** The socket closed: whether the body was whole (its last chunk came, or it had no framing). */
  close(): boolean {
    if (this.state === IDENTITY) this.state = ENDED
    return this.state === ENDED
  }

  /** The bytes of one read: `read[0, end)`. */
  feed(read: Buffer, end = read.length): void {
    let at = 0
    if (this.state === HEAD) {
      at = this.readHead(read.subarray(0, end))
      if (at < 0) return
    }
    while (at < end) {
      switch (this.state) {
        case IDENTITY:
          this.on.body(read, at, end)
          return
        case DATA: {
          const until = Math.min(end, at + this.count)
          this.on.body(read, at, until)
          this.count -= until - at
          at = until
          if (this.count === 0) this.state = AFTER_DATA
          break
        }
        case AFTER_DATA:
          // The CRLF that closes a chunk's bytes.
          if (read[at++] === LF) this.state = SIZE
          break
        case EXTENSION:
          // `;name=value` after a size: skipped to the line's end.
          if (read[at++] === LF) this.sizeRead()
          break
        case SIZE: {
          const byte = read[at++] as number
          const digit = hexDigit(byte)
          if (digit >= 0) this.count = this.count * 16 + digit
          else if (byte === LF) this.sizeRead()
          else if (byte !== CR) this.state = EXTENSION
          break
        }
        case ENDED:
          return
      }
    }
  }

  /** The head's end found in this read (joined to earlier ones): where the body starts, or -1. */
  private readHead(read: Buffer): number {
    const joined = this.head === undefined ? read : Buffer.concat([this.head, read])
    const blank = joined.indexOf('\r\n\r\n')
    if (blank < 0) {
      // A copy: the read's buffer is the next read's too.
      this.head = Buffer.from(joined)
      return -1
    }
    this.head = undefined
    const head = joined.toString('latin1', 0, blank)
    const status = Number(head.slice(9, 12))
    this.state = /\r\ntransfer-encoding:[ \t]*chunked/i.test(head) ? SIZE : IDENTITY
    this.on.head(status)
    // Never before this read: an earlier read would have found the blank line.
    return blank + 4 - (joined.length - read.length)
  }

  /** A size line's end: the chunk's bytes follow, or the last chunk's size 0 ends the body. */
  private sizeRead(): void {
    if (this.count === 0) {
      this.state = ENDED
      this.on.end()
    } else this.state = DATA
  }
}
