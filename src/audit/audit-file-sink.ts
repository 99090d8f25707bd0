import { type FileHandle, mkdir, open, rename, stat } from 'node:fs/promises'
import path from 'node:path'

export type AuditFileSinkOptions = { file: string; maxBytes: number; keep: number }

/** What the file sink reports: never thrown to a call, visible in /readyz and the metrics. */
export type SinkHealth = { ok: boolean; written: number; dropped: number; lastError?: string }

/**
 * Audit records as JSON lines appended to a file, for a log shipper to pick up
 * (docs/audit.md#the-file-sink). At `maxBytes` the file is renamed to `<file>.1` (older ones
 * shift up to `<file>.<keep>`, the oldest goes) and a new one is begun. A write that fails (a
 * full disk, a removed directory) drops its lines, counts them and marks the sink down; the next
 * write opens the file again, so the sink comes back by itself.
 */
export function createAuditFileSink({ file, maxBytes, keep }: AuditFileSinkOptions) {
  let handle: FileHandle | undefined
  let size = 0
  const health: SinkHealth = { ok: true, written: 0, dropped: 0 }

  async function openFile(): Promise<FileHandle> {
    if (handle) return handle
    await mkdir(path.dirname(file), { recursive: true })
    const opened = await open(file, 'a', 0o600)
    size = (await stat(file)).size
    handle = opened
    return opened
  }

  async function rotate(): Promise<void> {
    await handle?.close().catch(() => undefined)
    handle = undefined
    for (let index = keep - 1; index >= 1; index--) {
      await rename(`${file}.${index}`, `${file}.${index + 1}`).catch(() => undefined)
    }
    await rename(file, `${file}.1`).catch(() => undefined)
  }

  return {
    health,
    async write(lines: readonly string[]): Promise<void> {
      if (lines.length === 0) return
      const text = `${lines.join('\n')}\n`
      const bytes = Buffer.byteLength(text)
      try {
        let target = await openFile()
        if (size > 0 && size + bytes > maxBytes) {
          await rotate()
          target = await openFile()
        }
        await target.appendFile(text)
        size += bytes
        health.written += lines.length
        health.ok = true
        delete health.lastError
      } catch (error) {
        health.ok = false
        health.dropped += lines.length
        health.lastError = (error as NodeJS.ErrnoException).code ?? (error as Error).message
        // Begin again with a fresh handle: the file may have been removed or the disk freed.
        await handle?.close().catch(() => undefined)
        handle = undefined
      }
    },
    async close(): Promise<void> {
      await handle?.close().catch(() => undefined)
      handle = undefined
    },
  }
}

export type AuditFileSink = ReturnType<typeof createAuditFileSink>
