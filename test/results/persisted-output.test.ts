// Pins the persisted-output message byte for byte and the preview's cut-back rule.
import { describe, expect, it } from 'vitest'
import { buildPreview, persistedOutputMessage } from '../../src/results/persisted-output.js'

describe('persistedOutputMessage', () => {
  it('renders the exact text with the "..." line when there is more', () => {
    const message = persistedOutputMessage({
      path: '/blobs/acme/r1-t1.txt',
      size: 30_000,
      preview: 'a\nb',
      hasMore: true,
    })
    expect(message).toBe(
      '<persisted-output>\nOutput too large (29.3KB). Full output saved to: /blobs/acme/r1-t1.txt\n\n' +
        'Preview (first 2KB):\na\nb\n...\n</persisted-output>',
    )
  })

  it('omits the "..." line when the preview is the whole content', () => {
    const message = persistedOutputMessage({ path: '/b/x.json', size: 512, preview: '[]', hasMore: false })
    expect(message).toBe(
      '<persisted-output>\nOutput too large (512 bytes). Full output saved to: /b/x.json\n\n' +
        'Preview (first 2KB):\n[]\n</persisted-output>',
    )
  })
})

describe('buildPreview', () => {
  it('keeps short content whole', () => {
    expect(buildPreview('short\ntext')).toEqual({ preview: 'short\ntext', hasMore: false })
    const exact = 'x'.repeat(2_000)
    expect(buildPreview(exact)).toEqual({ preview: exact, hasMore: false })
  })

  it('cuts back to the last newline when it lies past character 1,000', () => {
    const content = `${'a'.repeat(1_500)}\n${'b'.repeat(1_000)}`
    expect(buildPreview(content)).toEqual({ preview: 'a'.repeat(1_500), hasMore: true })
  })

  it('cuts hard at 2,000 when the last newline is before character 1,000', () => {
    const content = `${'a'.repeat(900)}\n${'b'.repeat(3_000)}`
    const { preview, hasMore } = buildPreview(content)
    expect(preview).toBe(content.slice(0, 2_000))
    expect(preview).toHaveLength(2_000)
    expect(hasMore).toBe(true)
  })

  it('cuts hard at 2,000 when there is no newline', () => {
    expect(buildPreview('z'.repeat(5_000))).toEqual({ preview: 'z'.repeat(2_000), hasMore: true })
  })

  it('does not split a surrogate pair at the hard cut', () => {
    const content = `${'a'.repeat(1_999)}😀${'b'.repeat(100)}`
    expect(buildPreview(content).preview).toBe('a'.repeat(1_999))
  })

  it('honours a custom limit', () => {
    expect(buildPreview('0123456789', 4)).toEqual({ preview: '0123', hasMore: true })
    expect(buildPreview('012\n456789', 4)).toEqual({ preview: '012', hasMore: true })
  })
})
