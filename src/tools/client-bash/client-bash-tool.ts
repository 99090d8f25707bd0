import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { errorCode } from '../../paths/error-code.js'
import { realWorkingDirectories } from '../../paths/working-directories.js'
import type { BlobRef } from '../../results/blob-store.js'
import { buildPreview, persistedOutputMessage } from '../../results/persisted-output.js'
import { resultBlobId } from '../../results/result-blob-id.js'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolCallProgress, ToolUseContext } from '../../tool/tool.js'
import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_RESULT_CHARS } from '../bash/bash-limits.js'
import { MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE, sandboxLayout } from '../bash/bash-tool.js'
import { type CollectedOutput, createOutputCollector } from '../bash/output-collector.js'
import { type PersistentShell, startPersistentShell } from './persistent-shell.js'
import { ShellCapError, type ShellRegistry } from './shell-registry.js'
import { captureShellState, restoreShellState, type ShellStateFiles, unreadNote, unsavedNote } from './shell-state.js'

const ClientBashInputSchema = z.strictObject({
  command: z.string().optional().describe('The bash command to run'),
  restart: z.boolean().optional().describe('Restart the shell (a fresh one, nothing kept)'),
})
type ClientBashInput = z.infer<typeof ClientBashInputSchema>

type ClientBashOutput = { output: string; blob?: BlobRef }

/**
 * The texts of Anthropic's bash tool (https://docs.claude.com/en/docs/agents-and-tools/tool-use/bash-tool
 * and the reference `tools/bash.py` of anthropic-quickstarts' computer-use-demo); what toolexec
 * adds says that the shell was restarted (docs/adr/0142-client-tool-texts.md).
 */
export const clientBashMessages = {
  restarted: 'tool has been restarted.',
  noCommand: 'no command provided.',
  timedOut: (seconds: number) =>
    `timed out: bash has not returned in ${seconds} seconds and must be restarted. The shell has been restarted: the next command runs in a fresh shell (working directory and variables reset).`,
  exited: (code: number) =>
    `bash has exited with returncode ${code}. The shell has been restarted: the next command runs in a fresh shell.`,
  aborted:
    'Command was aborted before it finished. It may have had partial effects. The shell has been restarted: the next command runs in a fresh shell.',
  /** No shell could be started within the caps (docs/adr/0233-shell-caps-per-tenant.md); nothing ran. */
  noShell: (why: string) => `The command did not run: no shell could be started: ${why}.`,
}

function displayText(collected: CollectedOutput): string {
  if (!collected.spilled) return collected.text.replace(/\n+$/, '')
  const { preview, hasMore } = buildPreview(collected.head)
  return persistedOutputMessage({ path: collected.blob.path, size: collected.blob.size, preview, hasMore })
}

function failure(message: string, output: string, blob?: BlobRef): Error {
  return Object.assign(new Error(message), { stdout: output }, blob ? { blob } : {})
}

async function startShell(context: ToolUseContext) {
  const sandbox = context.environment.sandbox === 'bwrap' ? await sandboxLayout(context) : null
  const [cwd = context.cwd] = sandbox ? [sandbox.cwd] : await realWorkingDirectories(context, 'write')
  const env = context.environment.commandEnvironment
  return startPersistentShell({ cwd, sandbox, ...(env ? { env } : {}) })
}

/**
 * Anthropic's bash tool (`bash_20250124`): one persistent shell per session, same sandbox,
 * environment, output spill and progress as Bash (docs/adr/0145-persistent-shell.md).
 * Never concurrency-safe: the shell is shared.
 */
export function createClientBashTool(options: {
  shells: ShellRegistry
  timeoutMs?: number | undefined
  /** Where the shell's state is saved after each command, for the session's next shell (docs/adr/0270). */
  states?: ShellStateFiles | undefined
}) {
  const { shells, states } = options
  const timeoutMs = options.timeoutMs ?? BASH_DEFAULT_TIMEOUT_MS

  /**
   * The session's shell, with the saved state taken over when that state is another shell's (the
   * session's last command ran on another instance, or this instance's shell ended since).
   */
  async function sessionShell(context: ToolUseContext) {
    const { tenant, sessionId } = context
    let shell = await shells.shellFor(tenant, sessionId, () => startShell(context))
    const saved = await states?.read(tenant, sessionId).catch((error: unknown) => errorCode(error) ?? 'error')
    if (typeof saved === 'string') return { shell, notes: [unreadNote(saved)] }
    if (!saved || saved.shellId === shell.id) return { shell, notes: [] as string[] }
    if (shell.used) {
      // This instance's shell is behind what ran elsewhere: a fresh one takes the saved state.
      await shells.end(tenant, sessionId)
      shell = await shells.shellFor(tenant, sessionId, () => startShell(context))
    }
    if ('reset' in saved) return { shell, notes: [] as string[] }
    return { shell, notes: await restoreShellState(shell, saved, context.abortSignal) }
  }

  /** Ends the shell here and, through the saved state, any the session has elsewhere: the next command starts fresh, as the result says. */
  async function endShell(context: ToolUseContext) {
    await shells.end(context.tenant, context.sessionId)
    await states?.write(context.tenant, context.sessionId, { shellId: randomUUID(), reset: true })
  }

  /** Saves the state for the session's next shell; a failure is said in the result, not hidden. */
  async function saveState(shell: PersistentShell, context: ToolUseContext): Promise<string[]> {
    try {
      const state = await captureShellState(shell, context.abortSignal)
      if (state) await states?.write(context.tenant, context.sessionId, state)
      return []
    } catch (error) {
      return [unsavedNote(errorCode(error) ?? 'error')]
    }
  }

  async function runCommand(command: string, context: ToolUseContext, onProgress?: ToolCallProgress) {
    const { shell, notes } = await sessionShell(context)
    const output = createOutputCollector({
      thresholdChars: BASH_MAX_RESULT_CHARS,
      openBlob: () =>
        context.blobs.openWriteStream(context.tenant, `${resultBlobId(context.runId, context.toolUseId)}.txt`),
      onProgress: onProgress ? (progress) => onProgress(progress) : undefined,
    })
    const result = await shell.run(command, { timeoutMs, signal: context.abortSignal, output })
    output.end()
    const collected = await output.result()
    if (result.state === 'finished' && states) notes.push(...(await saveState(shell, context)))
    const text = [...notes, displayText(collected)].filter((part) => part !== '').join('\n')
    const blob = collected.spilled ? collected.blob : undefined
    if (result.state === 'exited') {
      await endShell(context)
      throw failure(clientBashMessages.exited(result.exitCode), text, blob)
    }
    if (result.state !== 'finished') {
      await endShell(context)
      const message =
        result.state === 'timed-out'
          ? clientBashMessages.timedOut(Math.round(timeoutMs / 1000))
          : clientBashMessages.aborted
      throw failure(message, text, blob)
    }
    if (result.exitCode !== 0) throw failure(`Exit code ${result.exitCode}`, text, blob)
    const data: ClientBashOutput = blob ? { output: text, blob } : { output: text }
    return data
  }

  return buildTool({
    name: 'bash',
    ruleFamily: 'shell',
    apiType: 'bash_20250124',
    searchHint: 'run commands in a persistent bash shell',
    inputSchema: ClientBashInputSchema,
    maxResultSizeChars: BASH_MAX_RESULT_CHARS,
    checkPermissions: deferToPermissionRules,
    description: 'Run a command in the persistent shell',
    prompt: "Anthropic's bash tool: runs commands in a persistent bash shell; `restart: true` starts a fresh one.",
    // The shell is shared: every call runs alone, and none is read-only (`cd` changes what follows).
    isConcurrencySafe: () => false,
    isReadOnly: () => false,
    async validateInput(_input: ClientBashInput, context) {
      if (context.environment.multiTenant && context.environment.sandbox !== 'bwrap') {
        return { result: false, message: MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE }
      }
      return { result: true }
    },
    async call(input: ClientBashInput, context, _canUseTool, _parentMessage, onProgress?: ToolCallProgress) {
      if (context.environment.multiTenant && context.environment.sandbox !== 'bwrap') {
        throw new Error(MULTI_TENANT_WITHOUT_SANDBOX_MESSAGE)
      }
      return shells.serialise(context.tenant, context.sessionId, async () => {
        if (input.restart) {
          await endShell(context)
          return { data: { output: clientBashMessages.restarted } as ClientBashOutput }
        }
        if (input.command === undefined || input.command.trim() === '') throw new Error(clientBashMessages.noCommand)
        try {
          return { data: await runCommand(input.command, context, onProgress) }
        } catch (error) {
          if (error instanceof ShellCapError) throw new Error(clientBashMessages.noShell(error.message))
          throw error
        } finally {
          shells.release(context.tenant, context.sessionId)
        }
      })
    },
    mapToolResult(data: ClientBashOutput) {
      return data.blob ? { content: data.output, blob: data.blob } : { content: data.output }
    },
  })
}
