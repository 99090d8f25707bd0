// Pins, by property-based fuzzing, that permission rule strings cannot stall the server: any rule
// a session may hold is accepted or refused with a 4xx, and a Bash call checked against it holds
// the event loop for no second of CPU (docs/adr/0543); and that the linear wildcard matcher agrees
// with the regular expression it replaced wherever that expression is cheap to run
// (docs/adr/0096-bash-wildcards-without-regular-expressions.md).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileBashRulePattern } from '../../src/permissions/bash-rule-pattern.js'
import { FUZZ_TEST_TIMEOUT_MS, startFuzzServer } from './fuzz-server.js'

/** The matcher before ADR 0096, kept here as the reference for small inputs only. */
function referenceRegExp(content: string): RegExp {
  const words = content.trim().split(/\s+/).filter(Boolean).join(' ')
  let source = ''
  for (let index = 0; index < words.length; index++) {
    const char = words[index] as string
    if (char === '\\' && words[index + 1] === '*') {
      source += '\\*'
      index++
    } else if (char === '*') source += '.*'
    else source += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  }
  if (source.endsWith(' .*')) source = `${source.slice(0, -3)}(?: .*)?`
  return new RegExp(`^${source}$`, 's')
}

const ruleContent = fc.stringMatching(/^[ab *\\.]{1,12}$/).filter((text) => /(^|[^\\])\*/.test(text.trim()))
const command = fc.array(fc.stringMatching(/^[ab*\\.]{1,4}$/), { minLength: 1, maxLength: 5 })

describe('fuzzing permission rules', () => {
  it('matches wildcards exactly as the old expression did', () => {
    fc.assert(
      fc.property(ruleContent, command, (content, words) => {
        expect(compileBashRulePattern(content)(words)).toBe(referenceRegExp(content).test(words.join(' ')))
      }),
      { numRuns: 5000 },
    )
  })

  it('answers sessions with arbitrary rules, and Bash calls checked against them, without a 5xx or a stall', {
    timeout: FUZZ_TEST_TIMEOUT_MS,
  }, async () => {
    const fuzz = await startFuzzServer()
    const rule = fc.oneof(
      fc.stringMatching(/^[a*\\ ():]{0,80}$/).map((content) => `Bash(${content})`),
      fc.string({ maxLength: 60 }),
      fc.integer({ min: 1, max: 40 }).map((stars) => `Bash(${'a*'.repeat(stars)}b)`),
    )
    await fc.assert(
      fc.asyncProperty(
        rule,
        fc.constantFrom('allow', 'deny', 'ask'),
        fc.stringMatching(/^[a ]{1,60}$/),
        async (text, kind, bash) => {
          fuzz.tally.cases++
          const created = await fuzz.request(
            'POST',
            '/v1/sessions',
            JSON.stringify({ permissions: { [kind]: [text] } }),
          )
          if (created.status !== 201) return
          const { session_id: sessionId } = JSON.parse(created.text) as { session_id: string }
          // A backtracking matcher took minutes on such rules (wildcard-match.ts): synchronous work
          // the watch in `finish` sees as a stretch on a CPU, whatever the host's load (docs/adr/0543).
          await fuzz.request(
            'POST',
            '/v1/runs',
            JSON.stringify({
              session_id: sessionId,
              tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: bash } }],
            }),
          )
        },
      ),
      { numRuns: 2000 },
    )
    await fuzz.finish(2000)
  })
})
