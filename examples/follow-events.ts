/**
 * Follows a run's events over WebSocket and resumes after a dropped connection (docs/events.md):
 * reconnecting with `?after=` the last `seq` seen gets every later event once, none repeated.
 * Node 20 has no global WebSocket, so this uses the `ws` package (`npm i ws`).
 *
 * Run it against a running toolexec: TOOLEXEC_URL=http://127.0.0.1:8080 npx tsx examples/follow-events.ts
 */
import WebSocket from 'ws'

const baseUrl = process.env.TOOLEXEC_URL ?? 'http://127.0.0.1:8080'
const key = process.env.TOOLEXEC_API_KEY
const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {}

type RunEvent = { type: string; seq: number }

/** Receives the run's events after `after` until `onEvent` answers false or the server closes (1000 after run.completed). */
function follow(runId: string, after: number, onEvent: (event: RunEvent) => boolean): Promise<void> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/runs/${runId}/events?after=${after}`, { headers })
  return new Promise((resolve, reject) => {
    socket.on('message', (data) => {
      if (!onEvent(JSON.parse(String(data)) as RunEvent)) socket.close()
    })
    socket.on('close', () => resolve())
    socket.on('error', reject)
  })
}

const started = await fetch(`${baseUrl}/v1/runs`, {
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify({
    wait: false,
    tool_uses: [
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo one' } },
      { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'sleep 0.2; echo two' } },
    ],
  }),
})
if (started.status !== 202) throw new Error(`toolexec answered ${started.status}: ${await started.text()}`)
const { run_id } = (await started.json()) as { run_id: string }

let lastSeq = 0
let completed = false
const onEvent = (event: RunEvent) => {
  lastSeq = event.seq
  completed = event.type === 'run.completed'
  console.log(`${event.seq} ${event.type}`)
  return true
}
// The first connection drops after one event, as a flaky network would; the next ones resume.
await follow(run_id, lastSeq, (event) => onEvent(event) && false)
while (!completed) await follow(run_id, lastSeq, onEvent)
