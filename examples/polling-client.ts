/**
 * Without a socket (docs/clients.md): start a run at once (202), answer its permission asks, and
 * poll until it is over. The second call writes a file, which the default permission mode asks
 * about; this program approves writes under the session's directory and nothing else.
 *
 * Run it against a running toolexec: TOOLEXEC_URL=http://127.0.0.1:8080 npx tsx examples/polling-client.ts
 */
import { setTimeout as sleep } from 'node:timers/promises'
import createClient from 'openapi-fetch'
import type { components, paths } from '../test/generated/openapi.js' // yours: './openapi.js'

type PermissionRequest = components['schemas']['PermissionRequest']

const baseUrl = process.env.TOOLEXEC_URL ?? 'http://127.0.0.1:8080'
const key = process.env.TOOLEXEC_API_KEY
const client = createClient<paths>({ baseUrl, headers: key ? { authorization: `Bearer ${key}` } : {} })

const commandOf = (ask: PermissionRequest) => (ask.input as { command?: string }).command ?? ''
const allow = (ask: PermissionRequest) => ask.tool === 'Bash' && commandOf(ask).startsWith('touch ')

const started = await client.POST('/v1/runs', {
  body: {
    wait: false,
    tool_uses: [
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo polling' } },
      { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'touch notes.txt && echo written' } },
      { type: 'tool_use', id: 'toolu_3', name: 'Bash', input: { command: 'rm notes.txt' } },
    ],
  },
})
if (started.error) throw new Error(started.error.detail)
const { run_id } = started.data
const answered = new Set<string>()
for (;;) {
  const { data: run, error } = await client.GET('/v1/runs/{run_id}', { params: { path: { run_id } } })
  if (error) throw new Error(error.detail)
  for (const ask of run.permission_requests.filter((open) => !answered.has(open.request_id))) {
    answered.add(ask.request_id)
    await client.POST('/v1/runs/{run_id}/permissions/{request_id}', {
      params: { path: { run_id, request_id: ask.request_id } },
      body: allow(ask) ? { decision: 'allow' } : { decision: 'deny', message: 'Not approved' },
    })
  }
  if (run.message) {
    console.log(JSON.stringify(run.message)) // the same message a wait: true run answers with
    break
  }
  await sleep(200)
}
