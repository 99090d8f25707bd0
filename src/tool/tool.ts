import type { z } from 'zod'
import type { AssistantMessage, ToolResultContent } from '../messages/content-blocks.js'
import type { BlobRef, BlobStore } from '../results/blob-store.js'
import type { ToolPermissionContext } from './permission-context.js'
import type { PermissionDecision, PermissionResult } from './permission-result.js'

/** Any zod schema whose output is a plain object: tool inputs are always JSON objects. */
export type AnyObjectSchema = z.ZodType<{ [key: string]: unknown }>

/** Free-form progress payload, relayed as the `data` of a `tool.progress` event. */
export type ToolProgressData = { [key: string]: unknown }

export type ToolCallProgress<P extends ToolProgressData = ToolProgressData> = (data: P) => void

export type ValidationResult = { result: true } | { result: false; message: string; errorCode?: number }

/** What Read recorded about a file, so Edit/Write can refuse stale or unread files. */
export type FileReadRecord = { mtimeMs: number; size: number; partial: boolean }

export type Todo = {
  content: string
  status: 'pending' | 'in_progress' | 'completed'
  activeForm?: string | undefined
}

/** Facts about the host that tools need but the session does not own. */
export type ToolEnvironment = {
  /** `bwrap` when Bash runs inside bubblewrap, `off` otherwise. */
  readonly sandbox: 'bwrap' | 'off'
  /** More than one tenant: Bash must not run outside the sandbox. */
  readonly multiTenant: boolean
  /** What keeps a command's processes together without bubblewrap (default `process-group`). */
  readonly containment?: 'bwrap' | 'pid-namespace' | 'process-group'
  /** The tenant's blob directory: readable by Read as an extra working directory. */
  readonly blobDirectory: string
  /** What Bash runs with (commandEnvironment); absent: the minimal set, nothing passed through. */
  readonly commandEnvironment?: Readonly<Record<string, string>>
  /**
   * The tenant's workspace root: every working directory must still resolve inside it on each
   * call (docs/adr/0090-working-directories-checked-per-call.md).
   */
  readonly workspaceRoot: string
}

/**
 * Everything one call may see. Session state (cwd, permissions, files read, todos) is carried
 * between runs; `abortSignal` and `toolUseId` are per call. Tools change session state only by
 * returning a `contextModifier` — except `readFileState`, a cache both Read and Edit update.
 */
export type ToolUseContext = {
  readonly tenant: string
  readonly sessionId: string
  readonly runId: string
  readonly toolUseId: string
  readonly cwd: string
  readonly permissionContext: ToolPermissionContext
  readonly abortSignal: AbortSignal
  readonly readFileState: Map<string, FileReadRecord>
  readonly todos: readonly Todo[]
  readonly tools: Tools
  readonly blobs: BlobStore
  readonly environment: ToolEnvironment
}

export type ContextModifier = (context: ToolUseContext) => ToolUseContext

export type ToolResult<Output = unknown> = {
  data: Output
  newMessages?: unknown[]
  /** Honoured for successful calls only; see the scheduler for when it applies. */
  contextModifier?: ContextModifier
}

/**
 * Tools report failures by throwing. The text the model gets is the error's `message`, `stderr`
 * and `stdout`; an error may also carry `blob` (a BlobRef) when the tool stored its output
 * before failing, so the run lists that blob like any other.
 */
export type ToolCallError = Error & { stderr?: string; stdout?: string; blob?: BlobRef }

/** The permission gate a tool may call again for sub-operations (and the pipeline calls once). */
export type CanUseToolFn = (
  tool: Tool,
  input: { [key: string]: unknown },
  context: ToolUseContext,
) => Promise<PermissionDecision>

export type PromptOptions = {
  permissionContext: ToolPermissionContext
  tools: Tools
}

/**
 * How a tool's `data` becomes tool_result content; `isError` marks a failure reported as data.
 * `blob` says the tool already stored its full output (Bash spills while it runs) and `content`
 * is the preview message: the engine reports the blob and does not persist again.
 */
export type MappedToolResult = { content: ToolResultContent; isError?: boolean; blob?: BlobRef }

/**
 * Which permission rules beyond those naming the tool itself apply to its calls, as MCP's tool
 * annotations let a tool say what it is (docs/adr/0285-tools-declare-their-traits.md):
 * - `read`: `Read(...)` path rules (Read, Glob, Grep);
 * - `edit`: `Edit(...)` path rules, and `acceptEdits` allows it inside the working directories
 *   (Edit, Write, the text editors);
 * - `shell`: `Bash(...)` rules are command rules (Bash, the API's bash);
 * - `none`: only rules that name the tool (MCP tools, ToolSearch, TodoWrite, memory).
 */
export type RuleFamily = 'read' | 'edit' | 'shell' | 'none'

/** The structural contract every tool satisfies: built-in, MCP or generated. */
export type Tool<
  Input extends AnyObjectSchema = AnyObjectSchema,
  Output = unknown,
  P extends ToolProgressData = ToolProgressData,
> = {
  readonly name: string
  readonly aliases?: readonly string[]
  /** 3–10 words ToolSearch matches against when the tool is deferred. */
  readonly searchHint?: string
  readonly inputSchema: Input
  /** MCP tools: the server's JSON Schema, sent to the API verbatim. */
  readonly inputJSONSchema?: { type: 'object'; [key: string]: unknown }
  readonly outputSchema?: z.ZodType
  /** Results longer than this are persisted to a blob (capped at 50,000; Infinity: never). */
  readonly maxResultSizeChars: number
  readonly shouldDefer?: boolean
  readonly alwaysLoad?: boolean
  readonly strict?: boolean
  /**
   * A Messages API client tool (`bash_20250124`, `text_editor_20250728`, `memory_20250818`): the
   * API knows its schema, so GET /v1/tools lists it as `{type, name, ...apiOptions}`
   * (docs/adr/0141-client-tool-definitions.md).
   */
  readonly apiType?: string
  readonly apiOptions?: Readonly<{ [key: string]: unknown }>
  /** Per-call deadline when the request sets none. */
  readonly defaultTimeoutMs?: number
  /** Required: a file tool left without it would escape the operator's `Edit(...)` deny rules. */
  readonly ruleFamily: RuleFamily
  /**
   * Other tools whose deny and ask rules also reach this call, as it does what they do: the text
   * editors' `view` reads like Read, their other commands write like Write. Their allow rules do
   * not allow it (docs/adr/0144, docs/adr/0235-editor-calls-meet-read-and-write-denials.md).
   */
  readonly deniedAlsoBy?: Readonly<Record<string, (input: z.infer<Input>) => boolean>>
  /** A call that names no path works in the session cwd (Glob, Grep), and path rules see that. */
  readonly pathDefaultsToCwd?: boolean
  /** Kept in simple mode (`CLAUDE_CODE_SIMPLE`: Bash, Read, Edit). */
  readonly inSimpleMode?: boolean
  /** Its error results cancel the run's unfinished calls under `cancel_on_error: "bash"` (Bash). */
  readonly cancelsSiblingsOnError?: boolean
  description(input: z.infer<Input>, options: PromptOptions): Promise<string>
  prompt(options: PromptOptions): Promise<string>
  call(
    input: z.infer<Input>,
    context: ToolUseContext,
    canUseTool: CanUseToolFn,
    parentMessage: AssistantMessage,
    onProgress?: ToolCallProgress<P>,
  ): Promise<ToolResult<Output>>
  checkPermissions(input: z.infer<Input>, context: ToolUseContext): Promise<PermissionResult>
  validateInput?(input: z.infer<Input>, context: ToolUseContext): Promise<ValidationResult>
  isConcurrencySafe(input: z.infer<Input>): boolean
  isReadOnly(input: z.infer<Input>): boolean
  isDestructive?(input: z.infer<Input>): boolean
  isEnabled(): boolean
  /** What an interrupt does to a running call: `cancel` aborts it, `block` lets it finish. */
  interruptBehavior?(): 'cancel' | 'block'
  /** Adds derived fields to the clone hooks and permission checks observe. Never the original. */
  backfillObservableInput?(input: { [key: string]: unknown }): void
  /** The file path a call touches, for Read(...)/Edit(...) permission rules. */
  getPath?(input: z.infer<Input>): string | undefined
  /** Fields a caller must never set even if the schema let them through. */
  readonly internalInputKeys?: readonly string[]
  mapToolResult(data: Output, toolUseId: string): MappedToolResult
  userFacingName(input?: Partial<z.infer<Input>>): string
}

// biome-ignore lint/suspicious/noExplicitAny: a pool holds tools of every input type
export type AnyTool = Tool<any, any, any>
export type Tools = readonly AnyTool[]
