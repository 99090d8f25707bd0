import { statSync } from 'node:fs'
import { z } from 'zod'
import { resolveRealPath } from '../../paths/resolve-real-path.js'
import { realWorkingDirectories, WorkingDirectoryEscapeError } from '../../paths/working-directories.js'
import type { BlobRef } from '../../results/blob-store.js'
import { buildPreview, persistedOutputMessage } from '../../results/persisted-output.js'
import { resultBlobId } from '../../results/result-blob-id.js'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolCallProgress, ToolUseContext } from '../../tool/tool.js'
import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_RESULT_CHARS, BASH_MAX_TIMEOUT_MS, BASH_TOOL_NAME } from './bash-limits.js'
import { BASH_PROMPT } from './bash-prompt.js'
import { isReadOnlyCommand } from './is-read-only-command.js'
import { type CollectedOutput, createOutputCollector } from './output-collector.js'
import { runShellCommand } from './run-shell-command.js'
import type { SandboxLayout } from './sandbox.js'

const BashInputSchema = z.strictObject({
  command: z.string().describe('The bash command to run'),
  timeout: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Timeout in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS})`),
  description: z.string().optional().describe('What the command does, in 5–10 words (e.g. "List files in src")'),
})
export type BashInput = z.infer<typeof BashInputSchema>

/** The merged output inline, or (past the threshold) the blob holding all of it and its start. */
export type BashOutput = { output: string; exitCode: number; blob?: BlobRef; bytes: number }

export const MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE =
  'Bash is disabled: this service serves several tenants and no sandbox (bubblewrap) is available, so commands cannot be isolated. Use the other tools.'

function displayText(collected: CollectedOutput): string {
  if (!collected.spilled) return collected.text.replace(/\n+$/, '')
  const { preview, hasMore } = buildPreview(collected.head)
  return persistedOutputMessage({ path: collected.blob.path, size: collected.blob.size, preview, hasMore })
}

/**
 * The directories bubblewrap binds, all checked this call: each working directory resolved and
 * inside the tenant's workspace root (realWorkingDirectories refuses the call otherwise), so
 * a directory replaced by a link to elsewhere is never bound (docs/adr/0090-working-directories-checked-per-call.md).
 * The blob directory is the service's own.
 */
export async function sandboxLayout(context: ToolUseContext): Promise<SandboxLayout> {
  const [cwd = context.cwd, ...rest] = await realWorkingDirectories(context, 'write')
  const writable = [cwd, ...rest]
  // bwrap refuses to bind a missing source; a working directory that does not exist has nothing to show.
  // Synchronously, as the realpath walk before it: a stat or two of local directories costs
  // microseconds, a trip through the thread pool a wake-up of the loop, about 0.15 ms a call
  // (docs/adr/0487-the-sandbox-layout-stats-its-directories-synchronously.md).
  const existing = writable.map((directory) => {
    try {
      return statSync(directory).isDirectory()
    } catch {
      return false
    }
  })
  return {
    cwd,
    writableDirectories: writable.filter((_directory, index) => existing[index]),
    readOnlyDirectories: [await resolveRealPath(context.environment.blobDirectory)],
  }
}

/** The session's working directories as they resolve now, or the refusal when one left the workspace. */
async function checkWorkingDirectories(context: ToolUseContext): Promise<string | undefined> {
  try {
    await realWorkingDirectories(context, 'write')
    return undefined
  } catch (error) {
    if (error instanceof WorkingDirectoryEscapeError) return error.message
    throw error
  }
}

/**
 * The output passed the inline limit and the blob directory refused it (full, read-only): the
 * call fails now with the start of the output (docs/adr/0122-unstorable-output-fails-the-call.md).
 */
function unstorableOutputMessage(error: Error): string {
  const reason = (error as NodeJS.ErrnoException).code ?? error.message
  return `Output too large (over ${BASH_MAX_RESULT_CHARS} characters) and it could not be stored (${reason}): the command was stopped and may have had partial effects. Only the start of the output is shown.`
}

/** The thrown error carries the blob when the output was spilled, so the run still lists it. */
function failure(message: string, output: string, blob?: BlobRef): Error {
  return Object.assign(new Error(message), { stdout: output }, blob ? { blob } : {})
}

export const BashTool = buildTool({
  name: BASH_TOOL_NAME,
  ruleFamily: 'shell',
  inSimpleMode: true,
  cancelsSiblingsOnError: true,
  searchHint: 'run shell commands in the working directory',
  inputSchema: BashInputSchema,
  maxResultSizeChars: BASH_MAX_RESULT_CHARS,
  checkPermissions: deferToPermissionRules,
  internalInputKeys: ['_simulatedSedEdit'],
  isReadOnly: (input: BashInput) => isReadOnlyCommand(input.command),
  isConcurrencySafe: (input: BashInput) => isReadOnlyCommand(input.command),
  async description(input: BashInput) {
    return input.description ?? 'Run a shell command'
  },
  prompt: BASH_PROMPT,
  async validateInput(input: BashInput, context) {
    if (context.environment.multiTenant && context.environment.sandbox !== 'bwrap') {
      return { result: false, message: MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE }
    }
    if (input.command.trim() === '') return { result: false, message: 'The command is empty: give a command to run.' }
    const escaped = await checkWorkingDirectories(context)
    if (escaped !== undefined) return { result: false, message: escaped }
    if (input.timeout !== undefined && input.timeout > BASH_MAX_TIMEOUT_MS) {
      return {
        result: false,
        message: `timeout must be at most ${BASH_MAX_TIMEOUT_MS} ms (10 minutes); got ${input.timeout}. Use a smaller timeout or split the work.`,
      }
    }
    return { result: true }
  },
  async call(input: BashInput, context, _canUseTool, _parentMessage, onProgress?: ToolCallProgress) {
    // Checked again here: nothing may run unsandboxed for several tenants, whatever called us.
    if (context.environment.multiTenant && context.environment.sandbox !== 'bwrap') {
      throw new Error(MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE)
    }
    if (context.abortSignal.aborted) throw new Error('Command was aborted before it started.')
    const timeoutMs = Math.min(input.timeout ?? BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS)
    const output = createOutputCollector({
      thresholdChars: BASH_MAX_RESULT_CHARS,
      openBlob: () =>
        context.blobs.openWriteStream(context.tenant, `${resultBlobId(context.runId, context.toolUseId)}.txt`),
      onProgress: onProgress ? (progress) => onProgress(progress) : undefined,
    })
    const sandbox = context.environment.sandbox === 'bwrap' ? await sandboxLayout(context) : null
    // Unsandboxed too, the shell starts in the checked real cwd, never in a link to elsewhere.
    const [cwd = context.cwd] = sandbox ? [sandbox.cwd] : await realWorkingDirectories(context, 'write')
    const result = await runShellCommand({
      command: input.command,
      cwd,
      timeoutMs,
      signal: context.abortSignal,
      output,
      sandbox,
      warm: { tenant: context.tenant, sessionId: context.sessionId },
      ...(context.environment.containment ? { containment: context.environment.containment } : {}),
      ...(context.environment.commandEnvironment ? { env: context.environment.commandEnvironment } : {}),
    })
    if (result.storageError) {
      const { preview, hasMore } = buildPreview(output.start())
      throw failure(unstorableOutputMessage(result.storageError), `${preview}${hasMore ? '\n...' : ''}`)
    }
    const collected = await output.result()
    const text = displayText(collected)
    const spilledBlob = collected.spilled ? collected.blob : undefined
    if (result.timedOut) {
      throw failure(
        `Command timed out after ${timeoutMs} ms and was killed (with its whole process group). It may have had partial effects: check the state before retrying.`,
        text,
        spilledBlob,
      )
    }
    if (result.aborted) {
      throw failure('Command was aborted before it finished. It may have had partial effects.', text, spilledBlob)
    }
    if (result.exitCode !== 0) throw failure(`Exit code ${result.exitCode}`, text, spilledBlob)
    const data: BashOutput = collected.spilled
      ? { output: text, exitCode: 0, blob: collected.blob, bytes: collected.bytes }
      : { output: text, exitCode: 0, bytes: collected.bytes }
    return { data }
  },
  mapToolResult(data: BashOutput) {
    return data.blob ? { content: data.output, blob: data.blob } : { content: data.output }
  },
})
