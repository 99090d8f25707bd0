/**
 * The client half of `npm run mcp:conformance` (docs/adr/0425-conformance-client-scenarios.md):
 * the suite's client scenarios per revision, and the client-credentials extension scenarios,
 * each run against `scripts/mcp-conformance-client.ts` (toolexec's MCP client with its OAuth).
 * Prints PASS/FAIL per scenario that applies and `n/a` with the reason for the others;
 * returns how many applicable scenarios failed.
 */
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

type Check = { id: string; status: string; errorMessage?: string }

/** Scenarios of the suite that do not test what toolexec offers, with why. */
const NOT_APPLICABLE: Record<string, string> = {
  'elicitation-sep1034-client-defaults':
    'toolexec cancels every elicitation (nobody to ask: docs/adr/0426-mcp-client-cancels-elicitation.md), so it fills in no defaults',
}

/** Extension scenarios (not in any revision's list) that issue 24 asks for. */
const EXTENSIONS = ['auth/client-credentials-basic', 'auth/client-credentials-jwt']

function checksUnder(directory: string): Map<string, Check[]> {
  const found = new Map<string, Check[]>()
  if (!existsSync(directory)) return found
  for (const entry of readdirSync(directory, { recursive: true }) as string[]) {
    if (path.basename(entry) !== 'checks.json') continue
    const scenario = /^(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(path.dirname(entry))?.[1]
    if (scenario === undefined) continue
    found.set(scenario, JSON.parse(readFileSync(path.join(directory, entry), 'utf8')) as Check[])
  }
  return found
}

/** Runs the client scenarios; `suite` is the conformance CLI as [command, leading args]. */
export async function runClientScenarios(
  suite: [string, string[]],
  root: string,
  revisions: readonly string[],
  results: string,
): Promise<number> {
  const [command, prefix] = suite
  const client = `${process.execPath} --import tsx ${path.join(root, 'scripts/mcp-conformance-client.ts')}`
  const run = (args: string[]) =>
    // The suite exits 1 when any scenario fails; the checks it writes say which.
    promisify(execFile)(command, [...prefix, 'client', '--command', client, ...args], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error) => {
      if (typeof (error as { code?: unknown }).code !== 'number') throw error
    })
  let failed = 0
  const report = (label: string, checks: Map<string, Check[]>) => {
    console.log(`\n== client scenarios ${label}`)
    for (const [scenario, own] of [...checks].sort(([a], [b]) => a.localeCompare(b))) {
      const why = NOT_APPLICABLE[scenario]
      const failures = own.filter((check) => check.status === 'FAILURE')
      if (why !== undefined) {
        console.log(`n/a   ${scenario}: ${why}`)
        continue
      }
      // A scenario that recorded no check did not run to its end.
      const passed = own.length > 0 && failures.length === 0
      if (!passed) failed += 1
      console.log(`${passed ? 'PASS' : 'FAIL'}  ${scenario}  (${own.length - failures.length}/${own.length} checks)`)
      for (const check of failures) console.log(`      ${check.id}: ${check.errorMessage ?? ''}`)
    }
  }
  for (const revision of revisions) {
    const output = path.join(results, `client-${revision}`)
    await run(['--suite', 'all', '--spec-version', revision, '-o', output])
    report(`at ${revision}`, checksUnder(output))
  }
  const output = path.join(results, 'client-extensions')
  for (const scenario of EXTENSIONS) await run(['--scenario', scenario, '-o', output])
  const extensions = checksUnder(output)
  for (const scenario of EXTENSIONS) if (!extensions.has(scenario)) extensions.set(scenario, [])
  report('(extensions: client credentials)', extensions)
  return failed
}
