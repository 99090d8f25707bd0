// Pins the per-tool persistence threshold: declared limit capped at 50,000, Infinity never persisted.
import { describe, expect, it } from 'vitest'
import { DEFAULT_MAX_RESULT_SIZE_CHARS, persistenceThreshold } from '../../src/results/result-threshold.js'

describe('persistenceThreshold', () => {
  it.each([
    ['Bash', 30_000, 30_000],
    ['Grep', 20_000, 20_000],
    ['Glob', 100_000, 50_000],
    ['Read', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY],
  ])('%s declares %d → %d', (_name, declared, expected) => {
    expect(persistenceThreshold({ maxResultSizeChars: declared })).toBe(expected)
  })

  it('caps at the exported default and rejects nonsense', () => {
    expect(DEFAULT_MAX_RESULT_SIZE_CHARS).toBe(50_000)
    expect(() => persistenceThreshold({ maxResultSizeChars: Number.NaN })).toThrow(/maxResultSizeChars/)
    expect(() => persistenceThreshold({ maxResultSizeChars: -1 })).toThrow(/maxResultSizeChars/)
  })
})
