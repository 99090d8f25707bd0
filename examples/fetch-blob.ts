/**
 * A result too large for the model (docs/results.md): the model gets a preview that names a file,
 * the backend gets the whole output from the blob URL of the run's `blobs`.
 *
 * Run it against a running toolexec: TOOLEXEC_URL=http://127.0.0.1:8080 npx tsx examples/fetch-blob.ts
 */
const baseUrl = process.env.TOOLEXEC_URL ?? 'http://127.0.0.1:8080'
const key = process.env.TOOLEXEC_API_KEY
const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {}

type Run = {
  results: Array<{ tool_use_id: string; content: string }>
  blobs: Array<{ tool_use_id: string; url: string; size: number }>
}

const response = await fetch(`${baseUrl}/v1/runs`, {
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify({
    tool_uses: [{ type: 'tool_use', id: 'toolu_big', name: 'Bash', input: { command: 'seq 1 50000' } }],
  }),
})
if (!response.ok) throw new Error(`toolexec answered ${response.status}: ${await response.text()}`)
const run = (await response.json()) as Run
// What the model reads: a preview that opens with <persisted-output>.
console.log(run.results[0]?.content.split('\n')[0])
for (const blob of run.blobs) {
  const whole = await (await fetch(`${baseUrl}${blob.url}`, { headers })).text()
  console.log(`${blob.tool_use_id}: ${blob.size} bytes, last line ${whole.trimEnd().split('\n').at(-1)}`)
}
