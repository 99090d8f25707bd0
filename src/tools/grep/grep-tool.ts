import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolUseContext, ValidationResult } from '../../tool/tool.js'
import { newestFirst, statIfExists } from '../shared/file-stats.js'
import { type ConfinedPath, tryResolveConfinedPath } from '../shared/resolve-confined-path.js'
import { type GrepBackend, type GrepOutputMode, searchArguments } from './grep-arguments.js'
import { GREP_PROMPT } from './grep-prompt.js'
import { runSearchProcess } from './run-search-process.js'

const GREP_TOOL_NAME = 'Grep'
/** Lines (or files) kept when head_limit is not set; the search stops past them. */
const GREP_DEFAULT_MAX_LINES = 5_000
const MAX_LINE_CHARS = 1_000

const count = z.number().int().min(0)
const GrepInputSchema = z.strictObject({
  pattern: z.string().describe('Regular expression to search for in file contents (ripgrep / Perl syntax)'),
  path: z.string().optional().describe('File or directory to search in (default: the working directory)'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.js" or "*.{ts,tsx}"'),
  type: z.string().optional().describe('Only search files of this type, e.g. "js", "py", "rust"'),
  output_mode: z
    .enum(['files_with_matches', 'content', 'count'])
    .optional()
    .describe(
      '"files_with_matches" (default): matching file paths; "content": matching lines; "count": matches per file',
    ),
  '-i': z.boolean().optional().describe('Case-insensitive search'),
  '-n': z.boolean().optional().describe('Show line numbers (content mode; default true)'),
  '-A': count.optional().describe('Lines of context after each match (content mode)'),
  '-B': count.optional().describe('Lines of context before each match (content mode)'),
  '-C': count.optional().describe('Lines of context before and after each match (content mode)'),
  head_limit: z.number().int().min(1).optional().describe('Return only the first N lines or files'),
  multiline: z.boolean().optional().describe('Let patterns span lines; `.` then matches newlines too (default false)'),
})
export type GrepInput = z.infer<typeof GrepInputSchema>

export type GrepOutput = { mode: GrepOutputMode; lines: string[]; truncated: boolean; limit: number }

/** ripgrep when it runs here, else GNU grep. Checked once per process. */
let detectedBackend: GrepBackend | undefined
function detectGrepBackend(): GrepBackend {
  detectedBackend ??= spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0 ? 'rg' : 'grep'
  return detectedBackend
}

async function resolveSearchPath(input: GrepInput, context: ToolUseContext): Promise<ConfinedPath> {
  const target = await tryResolveConfinedPath(input.path ?? context.cwd, context, 'read')
  if (target.ok && (await statIfExists(target.realPath)) === null) {
    return { ok: false, message: `Path does not exist: ${input.path}.` }
  }
  return target
}

/** Grep with a chosen backend; tests force `grep` so both are covered where rg is installed. */
export function createGrepTool(options: { backend?: GrepBackend } = {}) {
  const backend = () => options.backend ?? detectGrepBackend()

  /** What the input alone makes impossible, before any path is looked at. */
  function inputProblem(input: GrepInput): string | undefined {
    if (input.pattern === '') return 'The pattern is empty.'
    if (
      input.multiline &&
      (input.output_mode ?? 'files_with_matches') !== 'files_with_matches' &&
      backend() === 'grep'
    ) {
      return `multiline with output_mode "${input.output_mode}" needs ripgrep, which is not installed here: use output_mode "files_with_matches".`
    }
    return undefined
  }

  async function check(input: GrepInput, context: ToolUseContext): Promise<ValidationResult> {
    const problem = inputProblem(input)
    if (problem !== undefined) return { result: false, message: problem }
    const target = await resolveSearchPath(input, context)
    return target.ok ? { result: true } : { result: false, message: target.message }
  }

  return buildTool({
    name: GREP_TOOL_NAME,
    ruleFamily: 'read',
    pathDefaultsToCwd: true,
    searchHint: 'search file contents with regular expressions',
    inputSchema: GrepInputSchema,
    maxResultSizeChars: 20_000,
    checkPermissions: deferToPermissionRules,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    description: 'Search file contents',
    prompt: GREP_PROMPT,
    getPath: (input: GrepInput) => input.path,
    validateInput: check,
    async call(input: GrepInput, context) {
      // Checked again here, the path resolved once: the file tree may have changed between
      // validation and the call (the same messages as validation's).
      const problem = inputProblem(input)
      if (problem !== undefined) throw new Error(problem)
      const resolved = await resolveSearchPath(input, context)
      if (!resolved.ok) throw new Error(resolved.message)
      const target = resolved.realPath
      const mode = input.output_mode ?? 'files_with_matches'
      const chosen = backend()
      const limit = input.head_limit ?? GREP_DEFAULT_MAX_LINES
      const pattern = chosen === 'grep' && input.multiline ? `(?s)${input.pattern}` : input.pattern
      const args = searchArguments(chosen, {
        pattern,
        path: target,
        glob: input.glob,
        type: input.type,
        outputMode: mode,
        caseInsensitive: input['-i'] ?? false,
        lineNumbers: input['-n'] ?? true,
        after: input['-A'],
        before: input['-B'],
        context: input['-C'],
        multiline: input.multiline ?? false,
      })
      const result = await runSearchProcess(chosen, args, {
        // The checked real directory, never the session's cwd as held (it may have become a link).
        // One synchronous stat of the path just resolved (docs/adr/0312).
        cwd: statSync(target).isDirectory() ? target : path.dirname(target),
        signal: context.abortSignal,
        // Files mode is sorted by mtime afterwards, so it keeps everything up to the hard cap.
        maxLines: mode === 'files_with_matches' ? GREP_DEFAULT_MAX_LINES : limit,
        // GNU grep --count also lists files without matches.
        acceptLine: chosen === 'grep' && mode === 'count' ? (line) => !line.endsWith(':0') : undefined,
      })
      if (result.exitCode !== 0 && result.exitCode !== 1 && result.lines.length === 0) {
        throw Object.assign(new Error(`Search failed (${chosen} exit code ${result.exitCode})`), {
          stderr: result.stderr.trim(),
        })
      }
      let lines = result.lines.map((line) =>
        line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line,
      )
      if (mode === 'files_with_matches') lines = await newestFirst(lines.map((line) => path.resolve(context.cwd, line)))
      // GNU grep walks directories unsorted; counts read better (and the same on both backends) by path.
      if (mode === 'count') lines.sort()
      const truncated = result.stoppedEarly || lines.length > limit
      const data: GrepOutput = { mode, lines: lines.slice(0, limit), truncated, limit }
      return { data }
    },
    mapToolResult(data: GrepOutput) {
      const note = data.truncated
        ? `\n(Showing the first ${data.limit} ${data.mode === 'content' ? 'lines' : 'files'}; there are more. Narrow the search with path, glob or a more specific pattern.)`
        : ''
      if (data.lines.length === 0)
        return { content: data.mode === 'files_with_matches' ? 'No files found' : 'No matches found' }
      if (data.mode === 'files_with_matches') {
        return {
          content: `Found ${data.lines.length} file${data.lines.length === 1 ? '' : 's'}\n${data.lines.join('\n')}${note}`,
        }
      }
      if (data.mode === 'count') {
        const total = data.lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1) || 0), 0)
        const files = data.lines.length
        return {
          content: `${data.lines.join('\n')}\n\nFound ${total} total occurrences across ${files} file${files === 1 ? '' : 's'}.${note}`,
        }
      }
      return { content: data.lines.join('\n') + note }
    },
  })
}

export const GrepTool = createGrepTool()
