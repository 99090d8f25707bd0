// Pins the size text shown in persisted-output messages: bytes, then 1024-based KB/MB with one decimal.
import { describe, expect, it } from 'vitest'
import { formatFileSize } from '../../src/results/format-file-size.js'

describe('formatFileSize', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 bytes'],
    [1023, '1023 bytes'],
    [1024, '1KB'],
    [1536, '1.5KB'],
    [2048, '2KB'],
    [30_000, '29.3KB'],
    [1_048_575, '1MB'],
    [1_048_576, '1MB'],
    [1_572_864, '1.5MB'],
    [5 * 1024 * 1024 * 1024, '5120MB'],
  ])('%i bytes → %s', (bytes, expected) => {
    expect(formatFileSize(bytes)).toBe(expected)
  })

  it('rejects sizes that are not sizes', () => {
    expect(() => formatFileSize(-1)).toThrow(/bytes/)
    expect(() => formatFileSize(Number.NaN)).toThrow(/bytes/)
  })
})
