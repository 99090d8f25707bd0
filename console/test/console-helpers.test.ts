// Pins the console's pure helpers: its paths (an ask URL from the webhook opens that ask; an
// unknown path is not found) and the check of an edited input before it is sent.
import { describe, expect, it } from 'vitest'
import { parseEditedInput } from '../src/edited-input.js'
import { parseRoute } from '../src/router.js'

describe('console paths', () => {
  it('reads every view from its path', () => {
    expect(parseRoute('/console')).toEqual({ page: 'runs' })
    expect(parseRoute('/console/')).toEqual({ page: 'runs' })
    expect(parseRoute('/console/runs/run_1')).toEqual({ page: 'run', runId: 'run_1' })
    expect(parseRoute('/console/runs/run_1/asks/perm_2')).toEqual({ page: 'run', runId: 'run_1', requestId: 'perm_2' })
    expect(parseRoute('/console/sessions')).toEqual({ page: 'sessions' })
    expect(parseRoute('/console/sessions/ses_1')).toEqual({ page: 'session', sessionId: 'ses_1' })
    expect(parseRoute('/console/tools')).toEqual({ page: 'tools' })
    expect(parseRoute('/console/audit')).toEqual({ page: 'audit' })
    expect(parseRoute('/console/runs/run_1/asks')).toEqual({ page: 'not-found' })
    expect(parseRoute('/console/elsewhere')).toEqual({ page: 'not-found' })
  })
})

describe('an edited input', () => {
  it('is sent only as a JSON object, with a reason otherwise', () => {
    expect(parseEditedInput('{"command": "ls"}')).toEqual({ input: { command: 'ls' } })
    expect(parseEditedInput('{"command": ')).toMatchObject({ error: expect.stringContaining('not valid JSON') })
    expect(parseEditedInput('["ls"]')).toEqual({ error: 'The input must be a JSON object, as the tool receives it' })
    expect(parseEditedInput('null')).toMatchObject({ error: expect.stringContaining('JSON object') })
  })
})
