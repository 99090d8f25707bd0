// Pins docs/adr/0566: the bench tells a tool's success from the answer's text, exactly as a
// parse would, for answers written by the route's own serializer.
import { expect, it } from 'vitest'
import { answerShowsSuccess } from '../../bench/lib/tool-session.js'
import { runResultSerializer } from '../../routes/v1/runs/run-result-serializer.js'

const write = runResultSerializer(() => 'fallback')

function answer(content: string, isError?: true) {
  const results = [{ type: 'tool_result', tool_use_id: 'toolu_1', content, ...(isError ? { is_error: true } : {}) }]
  return write({
    run_id: 'run_1',
    status: 'completed',
    session_id: 'ses_1',
    results,
    message: { role: 'user', content: results },
    blobs: [],
  })
}

it('a success is one, even when its text quotes an error field', () => {
  expect(answerShowsSuccess(answer('     1\tfirst line'))).toBe(true)
  expect(answerShowsSuccess(answer('{"is_error":true,"content":"x"}'))).toBe(true)
  expect(JSON.parse(answer('{"is_error":true}')).results[0].is_error).toBeUndefined()
})

it('an error, an answer without the result or another layout is not', () => {
  expect(answerShowsSuccess(answer('File does not exist', true))).toBe(false)
  expect(answerShowsSuccess('{"results":[]}')).toBe(false)
  expect(answerShowsSuccess('fallback')).toBe(false)
})
