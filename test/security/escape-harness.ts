// Shared setup for the security tests: a listening server with two tenants (acme, globex), each
// tenant's secret, a secret on the host outside every workspace, and a leak detector.
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { vi } from 'vitest'
import { warmSandboxes } from '../../src/tools/bash/warm-sandboxes.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

export const GLOBEX_SECRET = 'GLOBEX-SECRET-7f3a'
export const HOST_SECRET = 'HOST-SECRET-91c2'
/** Text that only a read of the host's /etc/passwd or of the service's settings would show. */
const HOST_MARKERS = ['root:x:0:0', 'acme-key', 'globex-key', GLOBEX_SECRET, HOST_SECRET]
const ALL_TOOLS = ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep']

export type ToolUse = { name: string; input: Record<string, unknown> }
/** What an attempt got back; `named` is what it sent (echoing that back reveals nothing). */
export type Outcome = { status: number; text: string; named?: unknown }

export async function startEscapeServer(sandbox: 'bwrap' | 'off') {
  const tools = createTestTools()
  const server = await startTestServer({
    extraTools: tools.tools,
    lifetime: 'manual',
    env: { TOOLEXEC_API_KEYS: 'acme:acme-key,globex:globex-key', TOOLEXEC_SANDBOX: sandbox },
  })
  const workspace = server.config.workspace
  const acme = path.join(workspace, 'acme')
  const globex = path.join(workspace, 'globex')
  const hostSecret = path.join(server.root, 'host-secret.txt')
  await mkdir(acme, { recursive: true })
  await mkdir(globex, { recursive: true })
  await writeFile(path.join(globex, 'secret.txt'), `${GLOBEX_SECRET}\n`)
  await writeFile(path.join(globex, 'globex-only-name.txt'), 'x\n')
  await writeFile(hostSecret, `${HOST_SECRET}\n`)
  await writeFile(path.join(acme, 'own.txt'), 'acme own file\n')

  async function request(key: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${server.baseUrl}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: response.status, body: parsed }
  }

  /** A session of acme (unless another key is given) that allows every tool: confinement alone must hold. */
  async function session(body: Record<string, unknown> = {}, key = 'acme-key') {
    return request(key, '/v1/sessions', { permissions: { allow: ALL_TOOLS }, ...body })
  }

  async function sessionId(body: Record<string, unknown> = {}, key = 'acme-key'): Promise<string> {
    const created = await session(body, key)
    if (created.status !== 201) throw new Error(`session: ${created.status} ${JSON.stringify(created.body)}`)
    return (created.body as { session_id: string }).session_id
  }

  /** Runs one call in the session and returns its result text (content blocks joined). */
  async function call(session_id: string, use: ToolUse, key = 'acme-key'): Promise<Outcome> {
    const run = await request(key, '/v1/runs', {
      session_id,
      tool_uses: [{ type: 'tool_use', id: 'toolu_x', ...use }],
    })
    const results = (run.body as { results?: Array<{ content: unknown }> }).results
    return { status: run.status, text: results ? JSON.stringify(results[0]?.content) : JSON.stringify(run.body) }
  }

  /**
   * Why an outcome is an escape, or undefined: a secret shown, a 5xx, or an absolute host path
   * outside acme's own tree that the attempt did not itself name.
   */
  function leak(outcome: Outcome, attempt: unknown): string | undefined {
    if (outcome.status >= 500) return `HTTP ${outcome.status}`
    const marker = HOST_MARKERS.find((candidate) => outcome.text.includes(candidate))
    if (marker) return `shows ${marker}`
    let text = outcome.text
    for (const own of [acme, server.app.blobStore.directory('acme'), ...stringsIn(attempt)]) {
      text = text.split(JSON.stringify(own).slice(1, -1)).join('')
    }
    if (text.includes(server.root)) return 'names a host path outside the tenant tree'
    return undefined
  }

  /**
   * With bubblewrap, two Bash calls in the session and its warm sandboxes set up, so that the
   * attempt that follows runs in one made ahead (docs/adr/0390-warm-sandboxes.md); off, nothing.
   */
  async function warm(session_id: string): Promise<void> {
    if (sandbox !== 'bwrap') return
    // Earlier attempts' sessions, never used again, would hold acme's whole warm budget until idle.
    warmSandboxes.discardAll()
    // The second command of a session fills its pool.
    await call(session_id, { name: 'Bash', input: { command: 'true' } })
    await call(session_id, { name: 'Bash', input: { command: 'true' } })
    await vi.waitFor(() => {
      if (warmSandboxes.pids({ tenant: 'acme', sessionId: session_id }).length === 0) throw new Error('not warm yet')
    }, REAL_PROCESS_WAIT)
  }

  return { ...server, tools, workspace, acme, globex, hostSecret, request, session, sessionId, call, leak, warm }
}

function stringsIn(value: unknown): string[] {
  // The whole string and each word of it (a command names paths among other words), longest first.
  if (typeof value === 'string')
    return [value, ...value.split(/[\s'"]+/)].filter((word) => word.length > 1).sort((a, b) => b.length - a.length)
  if (Array.isArray(value)) return value.flatMap(stringsIn)
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn)
  return []
}

export type EscapeServer = Awaited<ReturnType<typeof startEscapeServer>>
