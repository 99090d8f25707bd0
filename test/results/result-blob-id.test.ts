// Pins blob ids for results: run id plus tool_use id, reduced to characters the blob store accepts,
// and distinct for distinct ids (x.1 and x_1 once shared a blob).
import { describe, expect, it } from 'vitest'
import { isValidBlobId } from '../../src/results/blob-names.js'
import { resultBlobId } from '../../src/results/result-blob-id.js'

describe('resultBlobId', () => {
  it('joins run and tool_use ids', () => {
    expect(resultBlobId('run_01', 'toolu_01AbC')).toBe('run_01-toolu_01AbC')
  })

  it('replaces unsafe characters and stays a valid id once an extension is added', () => {
    const id = resultBlobId('run/../1', `a.b:${'c'.repeat(400)}`)
    expect(id).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f]{16}$/)
    expect(id.length).toBeLessThanOrEqual(195)
    expect(isValidBlobId(`${id}.json`)).toBe(true)
  })

  it('gives distinct ids distinct blob ids', () => {
    const long = 'c'.repeat(300)
    const pairs: Array<[string, string]> = [
      ['run_1', 'x.1'],
      ['run_1', 'x_1'],
      ['run_1', 'x:1'],
      ['run_1', `x_1.${'0'.repeat(16)}`],
      ['run_1', `${long}a`],
      ['run_1', `${long}b`],
      ['run_2', 'x.1'],
    ]
    const ids = pairs.map(([run, toolUse]) => resultBlobId(run, toolUse))
    expect(new Set(ids).size).toBe(pairs.length)
    for (const id of ids) expect(isValidBlobId(`${id}.txt`), id).toBe(true)
  })

  it('rejects empty parts', () => {
    expect(() => resultBlobId('', 'x')).toThrow(/runId/)
  })
})
