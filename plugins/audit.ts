import fp from 'fastify-plugin'
import { createAuditFileSink } from '../src/audit/audit-file-sink.js'
import { type AuditLog, createAuditLog } from '../src/audit/audit-log.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The audit trail: one record per permission decision and per finished call (docs/audit.md). */
    audit: AuditLog
  }
}

/**
 * The audit trail's writer over the stores' audit store (memory or Redis) and, with
 * TOOLEXEC_AUDIT_FILE, a rotated JSON-lines file. Flushed on close, after the runs have drained.
 */
export const auditPlugin = fp(
  async (app) => {
    const { audit } = app.config
    const file = audit.file
      ? createAuditFileSink({ file: audit.file, maxBytes: audit.fileMaxBytes, keep: audit.fileKeep })
      : undefined
    const log = createAuditLog({ store: app.stores.audit, file, includeInputs: audit.inputs })
    app.decorate('audit', log)
    app.addHook('onClose', async () => log.close())
  },
  { name: 'audit', dependencies: ['config', 'stores'] },
)
