// Pins blob ids for results: run id plus tool_use id, reduced to characters the blob store accepts.
import { describe, expect, it } from 'vitest'
import { isValidBlobId } from '../../src/results/blob-names.js'
import { resultBlobId } from '../../src/results/result-blob-id.js'

describe('resultBlobId', () => {
  it('joins run and tool_use ids', () => {
    expect(resultBlobId('run_01', 'toolu_01AbC')).toBe('run_01-toolu_01AbC')
  })

  it('replaces unsafe characters and stays a valid id once an extension is added', () => {
    const id = resultBlobId('run/../1', `a.b:${'c'.repeat(400)}`)
    expect(id).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(isValidBlobId(`${id}.json`)).toBe(true)
  })

  it('rejects empty parts', () => {
    expect(() => resultBlobId('', 'x')).toThrow(/runId/)
  })
})
