// Pins the audit log's input digest: each record's is the SHA-256 of its input's canonical JSON as recorded,
// whether the input repeats (the remembered digest, docs/adr/0505), changes in place, or is large.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createAuditLog } from '../../src/audit/audit-log.js'
import { canonicalJson } from '../../src/messages/canonical-json.js'
import { createMemoryAuditStore } from '../../src/stores/memory/memory-audit-store.js'

const sha256 = (input: unknown) => createHash('sha256').update(canonicalJson(input)).digest('hex')

async function digestsOf(inputs: unknown[], mutate?: (index: number) => void): Promise<string[]> {
  const store = createMemoryAuditStore({ ttlMs: 60_000, maxRecords: 100 })
  const log = createAuditLog({ store, includeInputs: false })
  inputs.forEach((input, index) => {
    mutate?.(index)
    log.record({
      kind: 'call',
      tenant: 'acme',
      session_id: 's',
      run_id: 'r',
      tool_use_id: `t${index}`,
      tool: 'Bash',
      input,
    })
  })
  await log.flush()
  const page = await store.list({ tenant: 'acme', limit: 100 })
  return page.records.map((record) => record.input_sha256).reverse()
}

describe('createAuditLog input digests', () => {
  it('gives a repeated input the same digest, and each other input its own', async () => {
    const inputs = [{ command: 'true' }, { command: 'true' }, { command: 'ls' }, { command: 'true' }]
    expect(await digestsOf(inputs)).toEqual(inputs.map(sha256))
  })

  it('hashes an input changed in place since its last record afresh', async () => {
    const input = { command: 'true' }
    const digests = await digestsOf([input, input], (index) => {
      if (index === 1) input.command = 'rm -rf /tmp/x'
    })
    expect(digests).toEqual([sha256({ command: 'true' }), sha256({ command: 'rm -rf /tmp/x' })])
  })

  it('digests an input as it was when recorded, though the digest is taken when the batch is written (docs/adr/0579)', async () => {
    const store = createMemoryAuditStore({ ttlMs: 60_000, maxRecords: 100 })
    const log = createAuditLog({ store, includeInputs: false })
    const input = { command: 'true' }
    log.record({
      kind: 'decision',
      tenant: 'acme',
      session_id: 's',
      run_id: 'r',
      tool_use_id: 't',
      tool: 'Bash',
      input,
    })
    // The call goes on and its tool changes the input before the batch is written.
    input.command = 'changed by the tool'
    await log.flush()
    const page = await store.list({ tenant: 'acme', limit: 10 })
    expect(page.records.map((record) => record.input_sha256)).toEqual([sha256({ command: 'true' })])
  })

  it('digests large inputs, repeated or not', async () => {
    const large = { content: 'x'.repeat(100_000) }
    expect(await digestsOf([large, large, { content: 'y' }])).toEqual([large, large, { content: 'y' }].map(sha256))
  })
})
