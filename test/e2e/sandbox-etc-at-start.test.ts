// Pins that the sandbox's prepared /etc is made while the service starts, not on the event loop
// of its first sandboxed call (docs/adr/0387-the-sandbox-etc-is-prepared-at-start.md). This file
// runs in a process of its own (vitest's forks pool), so no earlier test made the copy; its
// TMPDIR is its own too, so a copy left in /tmp by a killed process of the same pid is not seen.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { detectSandbox } from '../../src/tools/bash/sandbox.js'
import { startTestServer } from '../helpers/start-test-server.js'

const privateTmp = mkdtempSync(path.join(tmpdir(), 'etc-at-start-'))
process.env.TMPDIR = privateTmp
afterAll(() => rmSync(privateTmp, { recursive: true, force: true }))

const detected = detectSandbox('auto')
const copies = () => readdirSync(privateTmp).filter((name) => name.startsWith(`toolexec-etc-${process.pid}-`))

describe.skipIf(detected.sandbox !== 'bwrap')(`the sandbox's /etc (${detected.reason})`, () => {
  it('is copied before the service answers its first request', async () => {
    expect(copies()).toEqual([])
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_SANDBOX: 'bwrap' } })
    expect(copies()).toHaveLength(1)
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200)
  })

  it('is not made by a service whose Bash runs without bubblewrap', async () => {
    const before = copies()
    await startTestServer({ env: { TOOLEXEC_SANDBOX: 'off' } })
    expect(copies()).toEqual(before)
  })
})
