// Pins how a Managed Agents call becomes a toolexec call and its result goes back: the agent
// toolset's names and inputs mapped, result content never empty or whitespace-only (the API
// refuses it and the session never recovers, anthropic-sdk-go#377), images kept.
import { describe, expect, it } from 'vitest'
import { NO_OUTPUT_TEXT, toSessionContent } from '../../src/managed-agents/to-session-content.js'
import { toToolUseBlock } from '../../src/managed-agents/to-tool-use-block.js'

describe('toToolUseBlock', () => {
  it('maps the agent toolset onto the built-in tools', () => {
    expect(
      toToolUseBlock({ id: 't1', name: 'bash', input: { command: 'ls', timeout_ms: 500, restart: true } }),
    ).toEqual({
      type: 'tool_use',
      id: 't1',
      name: 'Bash',
      input: { command: 'ls', timeout: 500 },
    })
    expect(toToolUseBlock({ id: 't2', name: 'read', input: { file_path: 'a', view_range: [3, 5] } }).input).toEqual({
      file_path: 'a',
      offset: 3,
      limit: 3,
    })
    expect(toToolUseBlock({ id: 't3', name: 'read', input: { file_path: 'a', view_range: [3, -1] } }).input).toEqual({
      file_path: 'a',
      offset: 3,
    })
    expect(toToolUseBlock({ id: 't4', name: 'grep', input: { pattern: 'x' } }).name).toBe('Grep')
  })

  it('passes other names through, for the pipeline to find or refuse', () => {
    expect(toToolUseBlock({ id: 't5', name: 'TodoWrite', input: {} }).name).toBe('TodoWrite')
  })
})

describe('toSessionContent', () => {
  const result = (content: Parameters<typeof toSessionContent>[0]['content']) =>
    toSessionContent({ type: 'tool_result', tool_use_id: 't', content })

  it('never sends an empty or whitespace-only text', () => {
    expect(result('')).toEqual([{ type: 'text', text: NO_OUTPUT_TEXT }])
    expect(result(' \n')).toEqual([{ type: 'text', text: NO_OUTPUT_TEXT }])
    expect(result([{ type: 'text', text: '' }])).toEqual([{ type: 'text', text: NO_OUTPUT_TEXT }])
  })

  it('keeps images and names a loaded tool in a text', () => {
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'AA==' },
    }
    expect(result([{ type: 'text', text: 'seen' }, image, { type: 'tool_reference', tool_name: 'Grep' }])).toEqual([
      { type: 'text', text: 'seen' },
      image,
      { type: 'text', text: 'Tool loaded: Grep' },
    ])
  })
})
