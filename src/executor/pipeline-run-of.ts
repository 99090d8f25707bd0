import type { CanUseToolFn } from '../tool/tool.js'
import type { PipelineRun } from './call-pipeline.js'
import { NO_HOOKS } from './hook-runner.js'
import { ALLOW_ALL } from './permission-gate.js'
import type { RunExecutorOptions } from './run-executor-types.js'

/** What every call of one run hands its pipeline: made once per run, not per call. */
export function pipelineRunOf(options: RunExecutorOptions): PipelineRun {
  const permissions = options.permissions ?? ALLOW_ALL
  // One per run, not per call: the pipeline hands it to every call's tool (nested permission checks).
  // Async, so a gate that answers at once or throws still gives the tool a promise.
  const canUseTool: CanUseToolFn = async (tool, input, context) =>
    permissions.decide({ tool, input, context, hookOutcome: {} })
  return {
    parentMessage: options.parentMessage,
    permissions,
    hooks: options.hooks ?? NO_HOOKS,
    canUseTool,
  }
}
