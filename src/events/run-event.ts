import type { ToolResultBlock } from '../messages/content-blocks.js'

export type RunStatus = 'running' | 'completed' | 'cancelled'

/** Event bodies as the engine emits them; the run layer stamps `seq`, `run_id` and `ts`. */
export type RunEventBody =
  | { type: 'run.started'; tool_use_ids: string[] }
  | { type: 'tool.queued'; tool_use_id: string; name: string; concurrency_safe: boolean }
  | { type: 'tool.started'; tool_use_id: string }
  | { type: 'tool.progress'; tool_use_id: string; data: unknown }
  | { type: 'tool.completed'; tool_use_id: string; is_error: boolean; duration_ms: number }
  | { type: 'tool.result'; tool_use_id: string; result: ToolResultBlock; blob_id?: string }
  | {
      type: 'permission.requested'
      request_id: string
      tool_use_id: string
      tool: string
      input: unknown
      message: string
    }
  | { type: 'permission.resolved'; request_id: string; decision: 'allow' | 'deny' }
  | { type: 'run.completed'; status: Exclude<RunStatus, 'running'> }

export type RunEventType = RunEventBody['type']

export type RunEvent = RunEventBody & { seq: number; run_id: string; ts: string }

export const RUN_EVENT_TYPES = [
  'run.started',
  'tool.queued',
  'tool.started',
  'tool.progress',
  'tool.completed',
  'tool.result',
  'permission.requested',
  'permission.resolved',
  'run.completed',
] as const satisfies readonly RunEventType[]
