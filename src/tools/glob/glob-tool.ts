import path from 'node:path'
import { glob } from 'tinyglobby'
import { z } from 'zod'
import { isInsideAny } from '../../paths/is-inside.js'
import { resolveRealPath } from '../../paths/resolve-real-path.js'
import { realWorkingDirectories } from '../../paths/working-directories.js'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolUseContext, ValidationResult } from '../../tool/tool.js'
import { newestFirst, statIfExists } from '../shared/file-stats.js'
import { type ConfinedPath, tryResolveConfinedPath } from '../shared/resolve-confined-path.js'

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

async function resolveSearchDirectory(input: GlobInput, context: ToolUseContext): Promise<ConfinedPath> {
  const directory = await tryResolveConfinedPath(input.path ?? context.cwd, context, 'read')
  if (!directory.ok) return directory
  const stats = await statIfExists(directory.realPath)
  if (stats === null) return { ok: false, message: `Directory does not exist: ${input.path}.` }
  if (!stats.isDirectory()) return { ok: false, message: `${input.path} is not a directory: set path to a directory.` }
  return directory
}

async function checkGlob(input: GlobInput, context: ToolUseContext): Promise<ValidationResult> {
  if (input.pattern.trim() === '') return { result: false, message: 'The pattern is empty.' }
  if (path.isAbsolute(input.pattern) || input.pattern.split(/[\\/]/).includes('..')) {
    return {
      result: false,
      message: `The pattern ${input.pattern} must be relative and must not contain "..": put the directory to search in path and keep only the file pattern in pattern.`,
    }
  }
  const directory = await resolveSearchDirectory(input, context)
  return directory.ok ? { result: true } : { result: false, message: directory.message }
}

/**
 * Only names whose directory really lies inside the working directories. The crawler starts
 * below `path` at the fixed part of the pattern (`link/*` starts in `link`), and that start is
 * followed even when it is a symlink, so a planted link would list another tree's names
 * (docs/adr/0092-glob-and-grep-stay-inside.md).
 */
async function listedInside(files: string[], context: ToolUseContext): Promise<string[]> {
  const roots = await realWorkingDirectories(context, 'read')
  const directories = new Map<string, Promise<boolean>>()
  const inside = await Promise.all(
    files.map((file) => {
      const directory = path.dirname(file)
      let verdict = directories.get(directory)
      if (!verdict) {
        verdict = resolveRealPath(directory).then((real) => isInsideAny(roots, real))
        directories.set(directory, verdict)
      }
      return verdict
    }),
  )
  return files.filter((_file, index) => inside[index])
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
    // Checked again here: the file tree may have changed between validation and the call.
    const check = await checkGlob(input, context)
    if (!check.result) throw new Error(check.message)
    const resolved = await resolveSearchDirectory(input, context)
    if (!resolved.ok) throw new Error(resolved.message)
    const directory = resolved.realPath
    const files = await glob(input.pattern, {
      cwd: directory,
      absolute: true,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      ignore: ['**/.git/**'],
      signal: context.abortSignal,
    })
    const sorted = await newestFirst(await listedInside(files, context))
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
