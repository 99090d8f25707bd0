/** Starts a run (wait: false) of one Gate call that holds until the test opens `key`; answers its id. */
export async function startGatedRun(baseUrl: string, key = 'g'): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wait: false, tool_uses: [{ type: 'tool_use', id: key, name: 'Gate', input: { key } }] }),
  })
  return ((await response.json()) as { run_id: string }).run_id
}
