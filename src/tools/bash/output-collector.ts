import { once } from 'node:events'
import { Writable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import type { BlobRef, BlobStream } from '../../results/blob-store.js'

export type OutputCollectorOptions = {
  /** Characters kept in memory; past this everything goes to a blob. */
  thresholdChars: number
  openBlob: () => Promise<BlobStream>
  /** Receives output text merged over `progressIntervalMs`, at most `progressMaxChars` per call. */
  onProgress?: ((progress: { output: string; omittedChars?: number }) => void) | undefined
  progressIntervalMs?: number
  progressMaxChars?: number
}

export type CollectedOutput =
  | { spilled: false; text: string; bytes: number }
  /** `head` is the first `thresholdChars` characters, enough for a preview. */
  | { spilled: true; head: string; bytes: number; blob: BlobRef }

export type OutputCollector = Writable & {
  /** Resolves once the stream has ended and any blob is closed. */
  result(): Promise<CollectedOutput>
  /** The start of the output seen so far (for a preview when the blob could not be written). */
  start(): string
}

/**
 * A Writable that keeps command output in memory up to a threshold and, once past it, streams
 * everything (the buffered start included) to a blob with backpressure: the writer is held
 * while the blob file catches up, so memory stays flat however much a command prints.
 */
export function createOutputCollector(options: OutputCollectorOptions): OutputCollector {
  const { thresholdChars, openBlob, onProgress } = options
  const progressIntervalMs = options.progressIntervalMs ?? 100
  const progressMaxChars = options.progressMaxChars ?? 10_000
  const decoder = new StringDecoder('utf8')
  let buffered: Buffer[] = []
  let text = ''
  let head = ''
  let bytes = 0
  let blob: BlobStream | null = null
  let pending = ''
  let omitted = 0
  let timer: NodeJS.Timeout | undefined

  const flushProgress = () => {
    timer = undefined
    if (pending === '' && omitted === 0) return
    onProgress?.(omitted > 0 ? { output: pending, omittedChars: omitted } : { output: pending })
    pending = ''
    omitted = 0
  }
  const queueProgress = (piece: string) => {
    if (!onProgress || piece === '') return
    const room = progressMaxChars - pending.length
    pending += piece.slice(0, Math.max(room, 0))
    omitted += Math.max(piece.length - room, 0)
    timer ??= setTimeout(flushProgress, progressIntervalMs)
  }
  const writeToBlob = async (chunk: Buffer) => {
    const stream = (blob as BlobStream).stream
    // A stream that already failed (ENOSPC, EROFS) never drains: waiting would hold the command
    // until its timeout (docs/adr/0122-unstorable-output-fails-the-call.md).
    if (stream.errored) throw stream.errored
    if (!stream.write(chunk)) await once(stream, 'drain')
  }

  const collector = new Writable({
    async write(chunk: Buffer, _encoding, callback) {
      try {
        bytes += chunk.length
        const piece = decoder.write(chunk)
        queueProgress(piece)
        if (blob) {
          if (head.length < thresholdChars) head += piece.slice(0, thresholdChars - head.length)
          await writeToBlob(chunk)
          return callback()
        }
        text += piece
        buffered.push(chunk)
        if (text.length > thresholdChars) {
          blob = await openBlob()
          head = text.slice(0, thresholdChars)
          text = ''
          const start = Buffer.concat(buffered)
          buffered = []
          await writeToBlob(start)
        }
        callback()
      } catch (error) {
        callback(error as Error)
      }
    },
    async final(callback) {
      try {
        const rest = decoder.end()
        queueProgress(rest)
        if (timer) clearTimeout(timer)
        flushProgress()
        if (blob) {
          blob.stream.end()
          await blob.finished
        } else {
          text += rest
        }
        callback()
      } catch (error) {
        callback(error as Error)
      }
    },
  }) as OutputCollector

  const done = new Promise<CollectedOutput>((resolve, reject) => {
    collector.once('finish', () => {
      if (!blob) return resolve({ spilled: false, text, bytes })
      blob.finished.then((ref) => resolve({ spilled: true, head, bytes, blob: ref }), reject)
    })
    collector.once('error', (error) => {
      if (timer) clearTimeout(timer)
      blob?.stream.destroy()
      reject(error)
    })
  })
  done.catch(() => undefined)
  collector.result = () => done
  collector.start = () => (blob || head !== '' ? head : text.slice(0, thresholdChars))
  return collector
}
