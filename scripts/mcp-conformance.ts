/**
 * Runs the official MCP conformance suite's server scenarios (`@modelcontextprotocol/conformance`,
 * pinned in devDependencies) against a started toolexec, at 2026-07-28 and at 2025-11-25, and
 * prints pass/fail per scenario; then its client scenarios (OAuth included) against toolexec's
 * MCP client (scripts/mcp-conformance-clients.ts); then has the MCP Inspector CLI list and call
 * our tools in both eras. Exit status 1 when an applicable scenario or an Inspector step fails
 * (docs/adr/0343-mcp-conformance-outside-npm-test.md, docs/adr/0425-conformance-client-scenarios.md;
 * CI runs it beside `test:lts`).
 *
 *   npx tsx scripts/mcp-conformance.ts [--url http://host:port/mcp] [--keep-results DIR] [--no-client] [--no-inspector]
 *   npx tsx scripts/mcp-conformance.ts --client-only [--keep-results DIR]   (only the client scenarios: no service started)
 *
 * Without `--url` it starts `server.ts` on a free loopback port with temporary directories. The
 * suite needs Node 22 or later (it uses `fs.globSync`): on an older Node it runs under
 * `npx -p node@22`, which downloads Node once from the npm registry. The Inspector (Node 22.19
 * or later, not a dependency: it is an operator's tool) runs through `npx` at a pinned version.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { runClientScenarios } from './mcp-conformance-clients.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const SUITE = path.join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const REVISIONS = ['2026-07-28', '2025-11-25'] as const

/**
 * The scenarios that apply to a server offering tools only (toolexec's tool pool), per revision.
 * Every other scenario of the suite needs a prompt, a resource, a completion, logging, a
 * server-to-client request, or one of the suite's fixture tools (`test_image_content`,
 * `test_reconnection`, …) that only the SDKs' conformance servers define: see NOT_APPLICABLE.
 */
const APPLICABLE: Record<(typeof REVISIONS)[number], readonly string[]> = {
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'tools-call-error',
    'caching',
    'http-header-validation',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    'input-required-result-unsupported-methods',
  ],
  '2025-11-25': [
    'server-initialize',
    'server-session-lifecycle',
    'ping',
    'tools-list',
    'tools-call-error',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
  ],
}

/** Checks inside an applicable scenario that test something a tools-only server does not have. */
const CHECKS_NOT_APPLICABLE: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability':
    "calls the suite's diagnostic tool test_missing_capability; no toolexec tool needs a client capability",
  'sep-2575-missing-capability-http-400': 'the same diagnostic tool',
  'sep-2575-server-sends-tools-list-changed-on-subscription':
    "changes the tool list through the suite's fixture tool test_trigger_tool_change",
  'sep-2575-server-sends-prompts-list-changed-on-subscription': 'no prompts',
  'sep-2549-prompts-list-caching-hints': 'no prompts (prompts/list is method-not-found, as the capability says)',
  'sep-2549-resources-list-caching-hints': 'no resources',
  'sep-2549-resources-templates-list-caching-hints': 'no resources',
  'sep-2549-resources-read-caching-hints': 'no resources',
}

/** Why each other scenario does not apply, by prefix or name. */
const NOT_APPLICABLE: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(resources-|sep-2164-)/, 'no resources'],
  [/^prompts-/, 'no prompts'],
  [/^completion-/, 'completions belong to prompts and resources'],
  [/^logging-|^tools-call-with-logging$/, 'no logging capability: run output travels as progress'],
  [
    /^tools-call-(simple-text|image|audio|embedded-resource|mixed-content|with-progress)$/,
    "calls the suite's fixture tools (test_*); our content mapping and progress are pinned by test/mcp",
  ],
  [/^json-schema-2020-12$/, "calls the suite's fixture tool json_schema_2020_12_tool"],
  [/^(tools-call-sampling|tools-call-elicitation|elicitation-)/, 'toolexec sends no requests to the client'],
  [
    /^input-required-result-/,
    "calls the suite's fixture tools (test_input_required_result_*); asks as input requests are pinned by test/mcp",
  ],
  [/^server-sse-polling$/, "calls the suite's fixture tool test_reconnection (stream resumption)"],
  [/^http-custom-header-server-validation$/, 'no toolexec tool declares x-mcp-header parameters'],
  [/^(tasks-|sep-2640-)/, 'extensions (tasks, skills) toolexec does not offer'],
]

type Check = { id: string; status: string; errorMessage?: string }

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

async function startToolexec(): Promise<{ url: string; stop(): void }> {
  const data = mkdtempSync(path.join(tmpdir(), 'toolexec-conformance-'))
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      PORT: String(port),
      // The refused DNS-rebinding probe would log a warning: not news here.
      LOG_LEVEL: 'error',
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`toolexec exited with ${child.exitCode} before it was healthy`)
    const healthy = await fetch(`${base}/healthz`).then(
      (response) => response.ok,
      () => false,
    )
    if (healthy) break
    if (attempt > 300) throw new Error('toolexec did not become healthy within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    url: `${base}/mcp`,
    stop() {
      child.kill('SIGTERM')
      rmSync(data, { recursive: true, force: true })
    },
  }
}

/** The suite's CLI: with this Node when it is new enough, else under `npx -p node@22`. */
function suiteCommand(): [string, string[]] {
  const major = Number(process.versions.node.split('.')[0])
  return major >= 22 ? [process.execPath, [SUITE]] : ['npx', ['-y', '-p', 'node@22', 'node', SUITE]]
}

/** Runs every scenario of one revision into `output`; returns the checks by scenario. */
async function runRevision(url: string, revision: string, output: string): Promise<Map<string, Check[]>> {
  const [command, prefix] = suiteCommand()
  const args = [...prefix, 'server', '--url', url, '--suite', 'all', '--spec-version', revision, '-o', output]
  // The suite exits 1 when any scenario fails; most do not apply, so its status says nothing here.
  await promisify(execFile)(command, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }).catch((error) => {
    if (typeof (error as { code?: unknown }).code !== 'number') throw error
  })
  const checks = new Map<string, Check[]>()
  for (const entry of readdirSync(output)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1]
    if (scenario === undefined) continue
    checks.set(scenario, JSON.parse(readFileSync(path.join(output, entry, 'checks.json'), 'utf8')) as Check[])
  }
  return checks
}

const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0'

/** The Inspector CLI lists the tools and calls Glob (read-only: allowed without any rule) in both eras. */
async function runInspector(url: string): Promise<number> {
  let failed = 0
  for (const era of ['modern', 'legacy'] as const) {
    const base = ['-y', '-p', 'node@22', '-p', INSPECTOR, 'mcp-inspector', '--cli', url, '--protocol-era', era]
    const steps: Array<[string, string[], (output: string) => boolean]> = [
      ['tools/list', ['--method', 'tools/list'], (output) => /"name": "Glob"/.test(output)],
      [
        'tools/call Glob',
        ['--method', 'tools/call', '--tool-name', 'Glob', '--tool-arg', 'pattern=*'],
        (output) => /"toolexec\/run_id": "run_/.test(output),
      ],
    ]
    for (const [name, args, ok] of steps) {
      const output = await promisify(execFile)('npx', [...base, ...args], { cwd: root }).then(
        (result) => result.stdout,
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
      )
      const passed = ok(output)
      if (!passed) failed += 1
      console.log(`${passed ? 'PASS' : 'FAIL'}  inspector --protocol-era ${era} ${name}`)
      if (!passed) console.log(output.slice(0, 2000))
    }
  }
  return failed
}

function reasonNotApplicable(scenario: string): string {
  return NOT_APPLICABLE.find(([pattern]) => pattern.test(scenario))?.[1] ?? 'not a tools-only scenario'
}

async function main(): Promise<number> {
  const argument = (name: string) => {
    const index = process.argv.indexOf(name)
    return index === -1 ? undefined : process.argv[index + 1]
  }
  const given = argument('--url')
  const keep = argument('--keep-results')
  const clientOnly = process.argv.includes('--client-only')
  const service = given === undefined && !clientOnly ? await startToolexec() : undefined
  const url = given ?? service?.url ?? ''
  const results = keep ?? mkdtempSync(path.join(tmpdir(), 'mcp-conformance-'))
  let failed = 0
  try {
    for (const revision of clientOnly ? [] : REVISIONS) {
      console.log(`\n== ${revision} against ${url}`)
      const checks = await runRevision(url, revision, path.join(results, revision))
      for (const scenario of APPLICABLE[revision]) {
        const own = checks.get(scenario)
        const counted = (own ?? []).filter((check) => CHECKS_NOT_APPLICABLE[check.id] === undefined)
        const failures = counted.filter((check) => check.status === 'FAILURE')
        const passed = own !== undefined && failures.length === 0
        if (!passed) failed += 1
        console.log(
          `${passed ? 'PASS' : 'FAIL'}  ${scenario}  (${counted.length - failures.length}/${counted.length} checks)`,
        )
        for (const check of failures) console.log(`      ${check.id}: ${check.errorMessage ?? ''}`)
        for (const check of own ?? []) {
          const why = CHECKS_NOT_APPLICABLE[check.id]
          if (why !== undefined && check.status !== 'SUCCESS') console.log(`      n/a ${check.id}: ${why}`)
        }
      }
      const others = [...checks.keys()].filter((scenario) => !APPLICABLE[revision].includes(scenario)).sort()
      for (const scenario of others) console.log(`n/a   ${scenario}: ${reasonNotApplicable(scenario)}`)
    }
    if (!process.argv.includes('--no-client'))
      failed += await runClientScenarios(suiteCommand(), root, REVISIONS, results)
    if (!clientOnly && !process.argv.includes('--no-inspector')) {
      console.log(`\n== MCP Inspector CLI (${INSPECTOR}) against ${url}`)
      failed += await runInspector(url)
    }
  } finally {
    service?.stop()
    if (keep === undefined) rmSync(results, { recursive: true, force: true })
  }
  console.log(
    failed === 0
      ? '\nevery applicable scenario and Inspector step passed'
      : `\n${failed} applicable scenario(s) or Inspector step(s) failed`,
  )
  return failed === 0 ? 0 : 1
}

process.exitCode = await main()
