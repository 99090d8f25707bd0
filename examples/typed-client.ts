/**
 * One batch through the client generated from toolexec's OpenAPI document (docs/clients.md).
 * In your project, generate the types first (openapi-typescript needs TypeScript 5: pin
 * `typescript@5` beside it): npx openapi-typescript http://127.0.0.1:8080/openapi.json -o openapi.d.ts
 *
 * Run it against a running toolexec: TOOLEXEC_URL=http://127.0.0.1:8080 npx tsx examples/typed-client.ts
 */
import createClient from 'openapi-fetch'
import type { paths } from '../test/generated/openapi.js' // yours: './openapi.js'

const baseUrl = process.env.TOOLEXEC_URL ?? 'http://127.0.0.1:8080'
const key = process.env.TOOLEXEC_API_KEY
const client = createClient<paths>({ baseUrl, headers: key ? { authorization: `Bearer ${key}` } : {} })

const { data, error } = await client.POST('/v1/runs', {
  body: { tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }] },
})
if (error) throw new Error(`${error.code}: ${error.detail}`) // problem+json, typed
if (!('message' in data)) throw new Error('202: only with wait: false')
// { role: 'user', content: [tool_result…] }, ready for the next Messages request
console.log(JSON.stringify(data.message))
