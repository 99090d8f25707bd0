// Pins the joins of the agent loop with @anthropic-ai/sdk, without a cast: an Anthropic.Message
// (every block kind the loop meets, every top-level field) is a run body for the generated client,
// its `.message` (also from GET /v1/runs/{run_id}) is an Anthropic.MessageParam, and GET /v1/tools is
// an Anthropic.ToolUnion[].
import type Anthropic from '@anthropic-ai/sdk'
import { describe, expectTypeOf, it } from 'vitest'
import type { components, paths } from '../generated/openapi.js'

type CreateRunBody = NonNullable<paths['/v1/runs']['post']['requestBody']>['content']['application/json']
type RunResult = components['schemas']['RunResult']
type Run = components['schemas']['Run']
type Tools = paths['/v1/tools']['get']['responses'][200]['content']['application/json']['tools']

describe('@anthropic-ai/sdk types', () => {
  it('takes an Anthropic.Message as { message }', () => {
    expectTypeOf<{ message: Anthropic.Message }>().toExtend<CreateRunBody>()
    expectTypeOf<Anthropic.ContentBlock>().toExtend<components['schemas']['AssistantContentBlock']>()
    for (const block of [
      {} as Anthropic.TextBlock,
      {} as Anthropic.ThinkingBlock,
      {} as Anthropic.RedactedThinkingBlock,
      {} as Anthropic.ServerToolUseBlock,
      {} as Anthropic.ToolUseBlock,
    ])
      expectTypeOf(block).toExtend<components['schemas']['AssistantContentBlock']>()
  })

  it('hands back a message the next request takes as it is', () => {
    expectTypeOf<RunResult['message']>().toExtend<Anthropic.MessageParam>()
    expectTypeOf<NonNullable<Run['message']>>().toExtend<Anthropic.MessageParam>()
    expectTypeOf<RunResult['results'][number]>().toExtend<Anthropic.ToolResultBlockParam>()
  })

  it('lists tools the Messages API takes', () => {
    expectTypeOf<Tools>().toExtend<Anthropic.ToolUnion[]>()
  })
})
