import { setTimeout as sleep } from 'node:timers/promises'
import createClient from 'openapi-fetch'
import type { components, paths } from '../test/generated/openapi.js'

type ToolUse = components['schemas']['ToolUseBlock']
type PermissionRequest = components['schemas']['PermissionRequest']

/** Starts a run at once (202), answers its permission asks, and polls until it is over. */
export async function runByPolling(baseUrl: string, tool_uses: ToolUse[], allow: (ask: PermissionRequest) => boolean) {
  const client = createClient<paths>({ baseUrl })
  const started = await client.POST('/v1/runs', { body: { wait: false, tool_uses } })
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
    if (run.message) return run.message // the same message a wait: true run answers with
    await sleep(200)
  }
}
