// Pins the bound on permission-rule matching (docs/permissions.md#how-much-matching-a-call-may-cost):
// a judgement over TOOLEXEC_MAX_RULE_MATCH_WORK (rules × characters) is refused without matching,
// whatever it would have matched, and one under it is judged; a command longer than
// TOOLEXEC_MAX_PARSED_COMMAND_CHARS is not parsed, yet deny rules still catch it, allow rules do
// not allow it, and it is not read-only. The bound is asserted by outcome, never by time.
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'

type Result = { content: string; is_error?: boolean }

async function runBash(baseUrl: string, sessionId: string, command: string): Promise<Result> {
  const response = await fetch(`${baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      session_id: sessionId,
      tool_uses: [{ type: 'tool_use', id: 't', name: 'Bash', input: { command } }],
    }),
  })
  return ((await response.json()) as { results: Result[] }).results[0]!
}

async function session(baseUrl: string, permissions: Record<string, string[]>, mode = 'default'): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ permission_mode: mode, permissions }),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { session_id: string }).session_id
}

describe('the bound on rule matching', () => {
  it('refuses a judgement over the bound, and judges one under it', async () => {
    // 100 rules: a 40-character command is judged (100 × ~200 ≤ 50,000), a 400-character one is not.
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_MAX_RULE_MATCH_WORK: '50000' } })
    const deny = Array.from({ length: 99 }, (_, index) => `Bash(never${index} *)`)
    const id = await session(baseUrl, { deny: [...deny, 'Bash(rm:*)'], allow: ['Bash(echo:*)'] })
    expect(await runBash(baseUrl, id, 'echo short')).toEqual({
      type: 'tool_result',
      tool_use_id: 't',
      content: 'short',
    })
    expect((await runBash(baseUrl, id, 'rm -f nothing')).content).toBe('Permission to use Bash has been denied.')
    const long = await runBash(baseUrl, id, `echo ${'x'.repeat(400)}`)
    expect(long.is_error).toBe(true)
    expect(long.content).toContain('too long to check against 100 permission rules')
    expect(long.content).toContain('TOOLEXEC_MAX_RULE_MATCH_WORK')
  })

  it('judges a command longer than the parse limit from its text: deny rules catch it, allow rules do not allow it', async () => {
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_MAX_PARSED_COMMAND_CHARS: '100' } })
    const padding = 'x'.repeat(200)
    const bypass = await session(baseUrl, { deny: ['Bash(rm:*)'] }, 'bypassPermissions')
    expect((await runBash(baseUrl, bypass, `echo ${padding} && rm -rf /tmp/nothing-here`)).content).toBe(
      'Permission to use Bash has been denied.',
    )
    // Without a prompter, the ask that an unparsed command gets is a denial naming the missing approver.
    const allowing = await session(baseUrl, { allow: ['Bash(echo:*)'] })
    expect((await runBash(baseUrl, allowing, `echo ${padding}`)).content).toContain('needs approval')
    expect((await runBash(baseUrl, allowing, `echo ${'x'.repeat(50)}`)).content).toBe('x'.repeat(50))
  })
})
