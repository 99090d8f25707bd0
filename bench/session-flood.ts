/**
 * The session flood of issue 28 against the service as production starts it (`node dist/server.js`,
 * its own process): one tenant sends `--mcp` `/mcp` initializes and `--sessions` session creations
 * carrying the most rules a session may (3 lists of 1,000-character rules, up to
 * TOOLEXEC_MAX_SESSION_RULE_BYTES); prints how many were accepted and refused and the server's RSS
 * before and after (docs/adr/0234-session-caps.md).
 *
 *   npx tsx bench/session-flood.ts [--mcp 20000] [--sessions 300]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startService } from './lib/server-process.js'

const { values } = parseArgs({
  options: { mcp: { type: 'string', default: '20000' }, sessions: { type: 'string', default: '300' } },
})
const MB = 2 ** 20
const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolexec-session-flood-'))
const server = await startService(scratch)
const rss = () =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
const before = rss()

const statuses = new Map<string, number>()
const count = (kind: string, status: number) =>
  statuses.set(`${kind} ${status}`, (statuses.get(`${kind} ${status}`) ?? 0) + 1)
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
})
for (let sent = 0; sent < Number(values.mcp); sent += 100) {
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      const response = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: initialize,
      })
      await response.arrayBuffer()
      count('mcp initialize', response.status)
    }),
  )
}
// As many 1,000-character rules as the byte cap lets in, in each list.
const rule = (list: string, index: number) => `Bash(${list}-${index} ${'x'.repeat(980)})`
for (let sent = 0; sent < Number(values.sessions); sent++) {
  const rules = (list: string) => Array.from({ length: 21 }, (_, index) => rule(list, index))
  const response = await fetch(`${server.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ permissions: { allow: rules('a'), deny: rules('d'), ask: rules('k') } }),
  })
  await response.arrayBuffer()
  count('session', response.status)
}
const after = rss()
await server.stop()
rmSync(scratch, { recursive: true, force: true })
console.log(
  JSON.stringify({
    cpu: os.cpus()[0]?.model,
    node: process.version,
    answers: Object.fromEntries(statuses),
    rssMB: { before: Math.round(before / MB), after: Math.round(after / MB) },
  }),
)
