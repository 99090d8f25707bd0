import path from 'node:path'
import { z } from 'zod'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolUseContext, ValidationResult } from '../../tool/tool.js'
import { newestFirst, statIfExists } from '../shared/file-stats.js'
import { type ConfinedPath, tryResolveConfinedPath } from '../shared/resolve-confined-path.js'
import { rememberResolution, takeResolution } from '../shared/validated-paths.js'
import { crawlMatches } from './crawl-matches.js'
import { listedInside } from './listed-inside.js'

const GLOB_TOOL_NAME = 'Glob'
const GLOB_MAX_RESULTS = 100

const GlobInputSchema = z.strictObject({
  pattern: z.string().describe('Glob pattern matched against file paths, e.g. "**/*.ts" or "src/**/*.test.ts"'),
  path: z
    .string()
    .optional()
    .describe('Directory to search in (default: the working directory). Omit it rather than passing "undefined"'),
})
export type GlobInput = z.infer<typeof GlobInputSchema>

export type GlobOutput = { directory: string; filenames: string[]; totalFound: number; truncated: boolean }

const PROMPT = `Fast file pattern matching in the working directories.

- Supports glob patterns like "**/*.js" or "src/**/*.ts" (braces like "*.{ts,tsx}" too); hidden files are included.
- Returns absolute paths of matching files, most recently modified first, at most ${GLOB_MAX_RESULTS}.
- The pattern is relative to path (default: the working directory); to search elsewhere, set path instead of using "..".
- Symbolic links to directories are not followed.
- Use it to find files by name; use Grep to search file contents.`

/**
 * The search directory, confined, and checked to be a directory. `known`: what this call's
 * validation resolved (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md).
 */
async function resolveSearchDirectory(
  input: GlobInput,
  context: ToolUseContext,
  known?: ReturnType<typeof takeResolution>,
): Promise<ConfinedPath> {
  const directory = known
    ? { ok: true as const, ...known }
    : await tryResolveConfinedPath(input.path ?? context.cwd, context, 'read')
  if (!directory.ok) return directory
  const stats = await statIfExists(directory.realPath)
  if (stats === null) return { ok: false, message: `Directory does not exist: ${input.path}.` }
  if (!stats.isDirectory()) return { ok: false, message: `${input.path} is not a directory: set path to a directory.` }
  return directory
}

/** The pattern's checks; the search directory's resolution is remembered for the call. */
async function checkGlob(input: GlobInput, context: ToolUseContext): Promise<ValidationResult> {
  const refused = checkPattern(input)
  if (refused) return refused
  const directory = await resolveSearchDirectory(input, context)
  if (!directory.ok) return { result: false, message: directory.message }
  rememberResolution(input, input.path ?? context.cwd, context, directory)
  return { result: true }
}

function checkPattern(input: GlobInput): { result: false; message: string } | undefined {
  if (input.pattern.trim() === '') return { result: false, message: 'The pattern is empty.' }
  if (path.isAbsolute(input.pattern) || input.pattern.split(/[\\/]/).includes('..')) {
    return {
      result: false,
      message: `The pattern ${input.pattern} must be relative and must not contain "..": put the directory to search in path and keep only the file pattern in pattern.`,
    }
  }
  return undefined
}

export const GlobTool = buildTool({
  name: GLOB_TOOL_NAME,
  ruleFamily: 'read',
  pathDefaultsToCwd: true,
  searchHint: 'find files by name pattern',
  inputSchema: GlobInputSchema,
  maxResultSizeChars: 100_000,
  checkPermissions: deferToPermissionRules,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  description: 'Find files by glob pattern',
  prompt: PROMPT,
  getPath: (input: GlobInput) => input.path,
  validateInput: checkGlob,
  async call(input: GlobInput, context) {
    // Checked again here: the file tree may have changed between validation and the call. The
    // directory is the one validation resolved and the rules saw; what the crawl lists is
    // confined below all the same (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md).
    const refused = checkPattern(input)
    if (refused) throw new Error(refused.message)
    const known = takeResolution(input, input.path ?? context.cwd, context)
    const resolved = await resolveSearchDirectory(input, context, known)
    if (!resolved.ok) throw new Error(resolved.message)
    const directory = resolved.realPath
    const listing = await crawlMatches(input.pattern, directory, () => context.abortSignal)
    const sorted = await newestFirst(await listedInside(listing, resolved.roots))
    const data: GlobOutput = {
      directory,
      filenames: sorted.slice(0, GLOB_MAX_RESULTS),
      totalFound: sorted.length,
      truncated: sorted.length > GLOB_MAX_RESULTS,
    }
    return { data }
  },
  mapToolResult(data: GlobOutput) {
    if (data.totalFound === 0) return { content: 'No files found' }
    const note = data.truncated
      ? `\n(Results are truncated: showing the ${GLOB_MAX_RESULTS} most recently modified of ${data.totalFound} files. Use a more specific path or pattern.)`
      : ''
    return { content: data.filenames.join('\n') + note }
  },
})
