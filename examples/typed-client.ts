import createClient from 'openapi-fetch'
// In your project: npx openapi-typescript http://127.0.0.1:8080/openapi.json -o openapi.d.ts
import type { paths } from '../test/generated/openapi.js'

export async function runBatch(baseUrl: string) {
  const client = createClient<paths>({ baseUrl })
  const { data, error } = await client.POST('/v1/runs', {
    body: { tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }] },
  })
  if (error) throw new Error(`${error.code}: ${error.detail}`) // problem+json, typed
  if (!('message' in data)) throw new Error('202: only with wait: false')
  return data.message // { role: 'user', content: [tool_result…] }, ready for the next Messages request
}
