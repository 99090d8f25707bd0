// Pins the error catalogue against docs/api.md in both directions: every code is documented with
// its status and title, and the docs list no code the service cannot return.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/errors/api-error.js'
import { ERROR_CATALOGUE } from '../../src/errors/error-catalogue.js'
import { toProblem } from '../../src/errors/problem.js'

const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')

/** Rows of the table under `## Errors`: `| \`code\` | status | title |`. */
function documentedErrors(): Record<string, { status: number; title: string }> {
  const section = docs.split(/^## Errors$/m)[1]?.split(/^## /m)[0] ?? ''
  const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+?) \|$/gm)]
  return Object.fromEntries(rows.map(([, code, status, title]) => [code!, { status: Number(status), title: title! }]))
}

describe('error catalogue', () => {
  it('matches the table in docs/api.md both ways', () => {
    const documented = documentedErrors()
    expect(Object.keys(documented).length).toBeGreaterThan(0)
    expect(documented).toEqual(ERROR_CATALOGUE)
  })

  it('turns an ApiError into problem details', () => {
    expect(toProblem(new ApiError('session_busy', 'Session ses_1 has a run in progress'))).toEqual({
      type: 'urn:toolexec:error:session_busy',
      title: 'Session has a run in progress',
      status: 409,
      detail: 'Session ses_1 has a run in progress',
      code: 'session_busy',
    })
  })
})
