/** Anthropic Messages stream events for a tool_use block, as the API sends them. */
export const start = (index: number, id: string, name: string) => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name, input: {} },
})
export const delta = (index: number, partial_json: string) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
})
export const stop = (index: number) => ({ type: 'content_block_stop', index })
