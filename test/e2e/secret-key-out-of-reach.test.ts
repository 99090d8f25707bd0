// Pins, on the real service process with bubblewrap on: a tenant's Bash cannot reach the secret
// store's key or values by any route a command has — its environment, any /proc/*/environ (the
// service's included), or the secrets file (docs/security.md#secrets).
import { randomBytes } from 'node:crypto'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { detectSandbox } from '../../src/tools/bash/sandbox.js'
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js'

const sandbox = detectSandbox('auto')
const KEY = randomBytes(32).toString('base64')
const VALUE = `value-${randomBytes(12).toString('hex')}`

// Only meaningful where bubblewrap really runs; skipped (with this reason) elsewhere, never faked.
describe.skipIf(sandbox.sandbox !== 'bwrap')(`the secret key out of a tenant's reach (${sandbox.reason})`, () => {
  let service: ServiceProcess
  let secretsFile: string
  const headers = { authorization: 'Bearer acme-key', 'content-type': 'application/json' }

  beforeAll(async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'toolexec-secret-reach-'))
    secretsFile = path.join(root, 'secrets.json')
    const settings = path.join(root, 'settings.json')
    await writeFile(settings, JSON.stringify({ permissions: { allow: ['Bash'] } }))
    service = await startServiceProcess({
      TOOLEXEC_API_KEYS: 'acme:acme-key',
      TOOLEXEC_SECRET_KEY: KEY,
      TOOLEXEC_SANDBOX: 'bwrap',
      TOOLEXEC_SETTINGS: settings,
      TOOLEXEC_WORKSPACE: path.join(root, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(root, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(root, 'memory'),
      TOOLEXEC_SECRETS_FILE: secretsFile,
    })
  })
  afterAll(async () => {
    await service?.stop()
  })

  it('keeps the key and the values out of Bash, /proc and the file system', async () => {
    const put = await fetch(`${service.baseUrl}/v1/secrets/api-token`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ value: VALUE }),
    })
    expect(put.status).toBe(201)
    const command = [
      'env',
      'for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f"; done 2>/dev/null',
      `cat ${secretsFile} 2>&1`,
      'true',
    ].join('; ')
    const run = await fetch(`${service.baseUrl}/v1/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command } }] }),
    })
    const { results } = (await run.json()) as { results: Array<{ content: string; is_error?: boolean }> }
    const [result] = results
    expect(result?.is_error).toBeUndefined()
    expect(result?.content).toContain('PATH=')
    expect(result?.content).toContain('No such file or directory')
    expect(result?.content).not.toContain('TOOLEXEC_SECRET_KEY')
    expect(result?.content).not.toContain(KEY)
    expect(result?.content).not.toContain(VALUE)
    expect(service.output()).not.toContain(VALUE)
  })
})
