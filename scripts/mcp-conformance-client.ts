/**
 * The client side of the MCP conformance suite: the command `conformance client --command` runs
 * once per scenario, with the scenario's server URL as the last argument, MCP_CONFORMANCE_SCENARIO
 * and, for the credential scenarios, MCP_CONFORMANCE_CONTEXT (docs/adr/0425-conformance-client-scenarios.md).
 * It is toolexec's MCP client as the service runs it: the manager, its OAuth provider on a secret
 * vault (in memory here), and the admin's authorization-code step played by following the
 * authorization server's redirect, as a browser would, and handing the callback to the manager.
 * Then it lists the tools and calls each once: with the arguments the scenario hands over in
 * MCP_CONFORMANCE_CONTEXT `toolCalls` when it does, and a schema-echo tool with the schema our
 * client holds for the scenario's other tool (what json-schema-2020-12-preservation compares).
 *
 *   npx tsx scripts/mcp-conformance-client.ts <server-url>
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createMcpManager } from '../src/mcp/client/mcp-manager.js'
import type { McpServersInput } from '../src/mcp/client/mcp-settings-schema.js'
import type { OAuthSettings } from '../src/mcp/client/oauth/oauth-settings-schema.js'
import { SecretKey } from '../src/secrets/secret-key.js'
import { SecretRedactor } from '../src/secrets/secret-redactor.js'
import { createSecretVault } from '../src/secrets/secret-vault.js'
import { createMemorySecretStore } from '../src/stores/memory/memory-secret-store.js'
import type { AnyTool, ToolUseContext } from '../src/tool/tool.js'

const SERVER = 'conformance'
/** Where the authorization server sends the browser back; nothing listens there: the redirect is read, not followed. */
const PUBLIC_URL = 'http://localhost:3999'

type Context = {
  client_id?: string
  client_secret?: string
  private_key_pem?: string
  signing_algorithm?: string
  /** The calls a scenario wants made, by the server's tool names, with their exact arguments. */
  toolCalls?: { name: string; arguments?: { [key: string]: unknown } }[]
}

/** The scenario's tool that takes another tool's input schema back, verbatim, as `schema`. */
const SCHEMA_ECHO = 'json_schema_echo'

/** `${secret:NAME}` as the settings file spells it. */
const ref = (name: string) => `\${secret:${name}}`

const url = process.argv.at(-1) ?? ''
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Context
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION

const vault = createSecretVault({
  store: createMemorySecretStore(),
  key: new SecretKey(randomBytes(32)),
  redactor: new SecretRedactor(),
})

/** Where auth/basic-cimd expects the client's metadata document (the suite fetches nothing). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'

/** The `oauth` block an operator would write for this scenario's authorization server. */
async function oauthSettings(): Promise<OAuthSettings | undefined> {
  if (!scenario.startsWith('auth/')) return undefined
  if (context.private_key_pem !== undefined) {
    await vault.write('conformance-key', context.private_key_pem, 'conformance')
    return {
      grant: 'private_key_jwt',
      client_id: context.client_id ?? '',
      private_key: ref('conformance-key'),
      ...(context.signing_algorithm ? { algorithm: context.signing_algorithm } : {}),
    }
  }
  if (context.client_secret !== undefined) await vault.write('conformance-secret', context.client_secret, 'conformance')
  const secret = context.client_secret === undefined ? {} : { client_secret: ref('conformance-secret') }
  if (scenario.startsWith('auth/client-credentials'))
    return { grant: 'client_credentials', client_id: context.client_id ?? '', ...secret }
  // Pre-registered when the scenario hands over a client; else the client id is the URL of a
  // metadata document the operator publishes (the suite's own URL), where the authorization
  // server takes those, and a dynamic registration where it does not.
  return {
    grant: 'authorization_code',
    ...(context.client_id ? { client_id: context.client_id } : { client_metadata_url: CLIENT_METADATA_URL }),
    ...secret,
  }
}

const oauth = await oauthSettings()
// The suite names the revision to speak; the two our settings know are pinned, any other is `auto`.
const protocol = revision === '2026-07-28' || revision === '2025-11-25' ? revision : undefined
const servers = {
  [SERVER]: {
    type: 'http',
    url,
    ...(oauth ? { oauth } : {}),
    ...(protocol ? { protocol } : {}),
  },
} as McpServersInput
const manager = createMcpManager({
  servers,
  clientInfo: { name: 'toolexec-conformance', version: '1.0.0' },
  resolveSecret: (name) => vault.resolve(name),
  oauthRecords: vault.internal,
  publicUrl: PUBLIC_URL,
  retry: { initialDelayMs: 50, maxAttempts: 2 },
})

async function settled(): Promise<string> {
  for (;;) {
    const status = manager.states()[0]?.status ?? 'connecting'
    if (status !== 'connecting' && status !== 'reconnecting') return status
    await sleep(20)
  }
}

/** The operator's browser: the authorization server approves at once and redirects to the callback. */
async function authorizeInBrowser(): Promise<void> {
  let next = await manager.oauth.authorize(SERVER)
  for (let hop = 0; hop < 10 && !next.href.startsWith(PUBLIC_URL); hop++) {
    const response = await fetch(next, { redirect: 'manual' })
    const location = response.headers.get('location')
    if (location === null) throw new Error(`the authorization server answered ${response.status} without a redirect`)
    next = new URL(location, next)
  }
  const param = (name: string) => next.searchParams.get(name) ?? undefined
  await manager.oauth.complete({
    code: param('code'),
    state: param('state'),
    iss: param('iss'),
    error: param('error'),
    error_description: param('error_description'),
  })
}

/** Arguments a tool's schema accepts: numbers 1, 2, …; strings "x"; the rest left out. */
function sampleInput(schema: { properties?: { [key: string]: { type?: unknown } } } | undefined) {
  let counter = 0
  const input: { [key: string]: unknown } = {}
  for (const [key, property] of Object.entries(schema?.properties ?? {})) {
    if (property.type === 'number' || property.type === 'integer') input[key] = ++counter
    else if (property.type === 'string') input[key] = 'x'
    else if (property.type === 'boolean') input[key] = true
  }
  return input
}

/** The calls to make: the scenario's own when it names them, else each tool once with sample arguments. */
function plannedCalls(): { tool: AnyTool; input: { [key: string]: unknown } }[] {
  const tools = manager.tools()
  const byServerName = (name: string) => tools.find((tool) => tool.name === `mcp__${SERVER}__${name}`)
  if (context.toolCalls !== undefined)
    return context.toolCalls.flatMap((call) => {
      const tool = byServerName(call.name)
      return tool ? [{ tool, input: call.arguments ?? {} }] : []
    })
  const echo = byServerName(SCHEMA_ECHO)
  const focal = tools.find((tool) => tool !== echo)
  return tools.map((tool) =>
    tool === echo && focal !== undefined
      ? { tool, input: { schema: focal.inputJSONSchema } }
      : { tool, input: sampleInput(tool.inputJSONSchema as never) },
  )
}

/** Makes the planned calls; whether every call succeeded. */
async function callEveryTool(): Promise<boolean> {
  const abort = new AbortController()
  // An MCP tool's call reads only the abort signal of its context (src/mcp/client/create-mcp-tool.ts).
  const toolContext = { abortSignal: abort.signal } as unknown as ToolUseContext
  const parent = { role: 'assistant', content: [] } as never
  let ok = true
  for (const { tool, input } of plannedCalls()) {
    try {
      const result = await tool.call(input, toolContext, async () => ({ behavior: 'allow' }), parent)
      console.log(`called ${tool.name}: ${JSON.stringify(result.data).slice(0, 200)}`)
    } catch (error) {
      console.log(`call of ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`)
      ok = false
    }
  }
  return ok
}

let exitCode = 0
try {
  await manager.ready()
  // Up to three authorizations: a step-up (`insufficient_scope`) or a move to another
  // authorization server sends the admin to the browser again.
  let done = false
  for (let round = 0; round < 4 && !done; round++) {
    const status = await settled()
    console.log(`server ${status}`)
    if (status === 'needs_authorization' && round < 3) {
      await authorizeInBrowser()
      continue
    }
    if (status !== 'connected') break
    done = await callEveryTool()
    // A call refused for want of an authorization goes round again; any other failure ends it.
    if (done || manager.states()[0]?.status !== 'needs_authorization') break
  }
  if (!done) {
    console.log(manager.states()[0]?.lastError ?? '')
    exitCode = 1
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error))
  exitCode = 1
} finally {
  await manager.close()
}
process.exit(exitCode)
