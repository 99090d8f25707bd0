import { hash } from 'node:crypto'
import { createEventClock } from '../events/event-clock.js'
import { canonicalJson } from '../messages/canonical-json.js'
import type { AuditEntry, AuditStore } from '../stores/audit-store.js'
import type { AuditFileSink, SinkHealth } from './audit-file-sink.js'
import { redactSecrets } from './redact-secrets.js'

/** Records waiting to be written beyond this are dropped (and counted): auditing never holds memory hostage. */
const MAX_QUEUED = 10_000

export type AuditLogOptions = {
  store: AuditStore
  file?: AuditFileSink | undefined
  /** TOOLEXEC_AUDIT_INPUTS: keep each input, redacted, besides its digest. */
  includeInputs: boolean
}

/** An entry as the service hands it in: the input itself, which becomes a digest (and maybe a redacted copy). */
export type AuditEvent = Omit<AuditEntry, 'input_sha256' | 'input' | 'ts'> & { input: unknown; ts?: string }

/** The one-shot hash: a third of a Hash object's cost for inputs this small, same hex (docs/adr/0491). */
export const inputDigest = (input: unknown) => hash('sha256', canonicalJson(input), 'hex')

/**
 * The digest of a canonical text, remembering the last text and digest: a call's decision and its
 * outcome are recorded one after the other with the same input, and the second then costs nothing
 * (docs/adr/0505-the-audit-digest-remembers-the-last-input.md). Keyed by the text, not the
 * object, so an input changed in between is hashed afresh.
 */
const MEMO_MAX_CHARS = 64 * 1024

function lastDigestMemo(): (text: string) => string {
  let lastText: string | undefined
  let lastDigest = ''
  return (text) => {
    if (text === lastText) return lastDigest
    const digest = hash('sha256', text, 'hex')
    // A large input (a Write's content) is not kept alive between records for this.
    lastText = text.length <= MEMO_MAX_CHARS ? text : undefined
    lastDigest = digest
    return digest
  }
}

/** An entry waiting for its batch, with its input's canonical text, hashed when the batch is written. */
type Queued = { entry: AuditEntry; text: string }

/**
 * The audit trail's writer (docs/adr/0245-audit-trail.md). `record` never throws and never makes
 * a call wait: entries are queued and written in batches, in order, to the store and the file
 * sink; a failing store or sink drops what it cannot write and says so in `health`.
 */
export function createAuditLog(options: AuditLogOptions) {
  let queue: Queued[] = []
  let writing: Promise<void> | undefined
  const store: SinkHealth = { ok: true, written: 0, dropped: 0 }
  /** Entries of the same millisecond share one ISO string, as run events do (docs/adr/0491). */
  const timestamp = createEventClock()
  const digest = lastDigestMemo()

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      // The digest is taken here, after the call went on (docs/adr/0579): the text is already fixed.
      const batch = queue.map(({ entry, text }) => {
        entry.input_sha256 = digest(text)
        return entry
      })
      queue = []
      const lines = options.file ? batch.map((entry) => JSON.stringify(entry)) : []
      await Promise.all([
        options.store.append(batch).then(
          () => {
            store.ok = true
            store.written += batch.length
            delete store.lastError
          },
          (error: unknown) => {
            store.ok = false
            store.dropped += batch.length
            store.lastError = error instanceof Error ? error.message : String(error)
          },
        ),
        options.file?.write(lines),
      ])
    }
  }

  function schedule(): void {
    writing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(drain).finally(() => {
      writing = undefined
      if (queue.length > 0) schedule()
    })
  }

  return {
    record(event: AuditEvent): void {
      try {
        const { input, ts, ...rest } = event
        // The text now, while the input is as recorded; its hash when the batch is written, off the
        // path of the call that is waiting for this decision (docs/adr/0579).
        const text = canonicalJson(input)
        const entry: AuditEntry = {
          ts: ts ?? timestamp(),
          ...rest,
          input_sha256: '',
          ...(options.includeInputs ? { input: redactSecrets(input) } : {}),
        }
        if (queue.length >= MAX_QUEUED) {
          store.dropped++
          if (options.file) options.file.health.dropped++
          return
        }
        queue.push({ entry, text })
        schedule()
      } catch {
        store.dropped++
      }
    },
    list: options.store.list.bind(options.store),
    health: () => ({ store: { ...store }, ...(options.file ? { file: { ...options.file.health } } : {}) }),
    /** Writes what is queued (shutdown, tests). */
    async flush(): Promise<void> {
      while (writing || queue.length > 0) await (writing ?? drain())
    },
    async close(): Promise<void> {
      await this.flush()
      await options.file?.close()
    },
  }
}

export type AuditLog = ReturnType<typeof createAuditLog>
