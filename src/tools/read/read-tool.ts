import { constants, fstatSync, read, type Stats, statSync } from 'node:fs'
import { promisify } from 'node:util'
import { z } from 'zod'
import type { ImageBlock } from '../../messages/content-blocks.js'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolUseContext } from '../../tool/tool.js'
import { readSmallSync, readWhole } from '../shared/descriptor-io.js'
import { openConfinedDescriptor, tryResolveConfinedPath } from '../shared/resolve-confined-path.js'
import { rememberResolution, takeResolution } from '../shared/validated-paths.js'
import { detectFileKind, SNIFF_BYTES } from './detect-file-kind.js'
import { numberAsciiLines } from './number-ascii-lines.js'
import { readTextLines } from './read-text-lines.js'

const READ_TOOL_NAME = 'Read'
const DEFAULT_READ_LIMIT = 2_000
const MAX_LINE_CHARS = 2_000
/** Past this many characters of numbered text the output stops at a line boundary with a note. */
const MAX_READ_OUTPUT_CHARS = 250_000
/** Base64 of this many bytes stays under the API's 5 MB image limit. */
const MAX_IMAGE_BYTES = 3_750_000

const readAt = promisify(read)

const ReadInputSchema = z.strictObject({
  file_path: z
    .string()
    .describe('Absolute path of the file to read (a path relative to the working directory also works)'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('1-based line number to start reading from. Only for files too large to read at once'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Number of lines to read (default ${DEFAULT_READ_LIMIT}). Only for files too large to read at once`),
})
export type ReadInput = z.infer<typeof ReadInputSchema>

export type ReadOutput =
  | { type: 'text'; filePath: string; content: string }
  | { type: 'image'; filePath: string; mediaType: ImageBlock['source']['media_type']; base64: string }

const PROMPT = `Reads a file from the local filesystem.

- file_path should be an absolute path; it must lie inside the working directories (or the directory where large tool outputs are saved).
- By default it reads up to ${DEFAULT_READ_LIMIT} lines from the start of the file. For long files pass offset (1-based line number) and limit to read a range.
- Lines longer than ${MAX_LINE_CHARS} characters are cut.
- Output is numbered like \`cat -n\`: the line number, a tab, then the line. The number and tab are not part of the file: never include them in an Edit's old_string.
- PNG, JPEG, GIF and WebP images are returned as images you can see.
- Binary files are refused. To list a directory use Glob or Bash \`ls\`.
- You must Read a file before you Edit or overwrite it with Write.`

function numbered(number: number, text: string): string {
  return `${String(number).padStart(6)}\t${text}`
}

export const ReadTool = buildTool({
  name: READ_TOOL_NAME,
  ruleFamily: 'read',
  inSimpleMode: true,
  searchHint: 'read file contents with line numbers, images',
  inputSchema: ReadInputSchema,
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  checkPermissions: deferToPermissionRules,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  description: 'Read a file from the local filesystem',
  prompt: PROMPT,
  getPath: (input: ReadInput) => input.file_path,
  async validateInput(input: ReadInput, context) {
    // Named once: its real path and stats from one descriptor the call reopens
    // (docs/adr/0522-a-read-names-its-file-once.md).
    const confined = await tryResolveConfinedPath(input.file_path, context, 'read', true)
    if (!confined.ok) return { result: false, message: confined.message }
    const stats = confined.named?.stats ?? statOrNull(confined.realPath)
    if (!stats)
      return {
        result: false,
        message: `File does not exist: ${input.file_path}. The working directory is ${context.cwd}.`,
      }
    if (stats.isDirectory()) {
      return {
        result: false,
        message: `${input.file_path} is a directory, not a file. Use Glob or Bash \`ls\` to list it.`,
      }
    }
    if (!stats.isFile()) return { result: false, message: `${input.file_path} is not a regular file.` }
    rememberResolution(input, input.file_path, context, confined)
    return { result: true }
  },
  async call(input: ReadInput, context) {
    // The file is opened once, through checked descriptors, and everything below reads that
    // object: swapping a directory for a link after the check cannot redirect the read
    // (docs/adr/0091-open-through-checked-descriptors.md). The path is the one validation
    // resolved and the permission rules saw (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md).
    const resolved = takeResolution(input, input.file_path, context)
    const opened = await openConfinedDescriptor(
      input.file_path,
      context,
      'read',
      constants.O_RDONLY,
      undefined,
      resolved,
    )
    try {
      return await readOpened(input, context, opened.realPath, opened.fd, opened.stats)
    } finally {
      await opened.close()
    }
  },
  mapToolResult(data: ReadOutput) {
    if (data.type === 'image') {
      return { content: [{ type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.base64 } }] }
    }
    return { content: data.content }
  },
})

/**
 * Reads the file open on `fd`. A small one is read whole, synchronously, and every step below
 * works on those bytes; a larger one is sniffed and streamed through the threadpool
 * (docs/adr/0480-small-files-are-read-synchronously.md). The kernel answers fstat
 * from the descriptor (docs/adr/0386), unless validation's stats are of this very object, taken
 * in this turn (`named`, docs/adr/0522): a file that grew since is read as readSmallSync says.
 */
async function readOpened(input: ReadInput, context: ToolUseContext, realPath: string, fd: number, named?: Stats) {
  const stats = named ?? fstatSync(fd)
  if (!stats.isFile()) throw new Error(`${input.file_path} is not a regular file.`)
  const whole = readSmallSync(fd, stats.size)
  const kind = detectFileKind(realPath, whole ?? (await readHead(fd)))
  if (kind.kind === 'binary') {
    throw new Error(
      `Cannot read ${input.file_path}: ${kind.why}. Binary files are not shown; use Bash (e.g. \`file\`, \`xxd | head\`) to inspect it.`,
    )
  }
  if (kind.kind === 'image') {
    if (stats.size > MAX_IMAGE_BYTES) {
      throw new Error(
        `The image ${input.file_path} is ${stats.size} bytes; at most ${MAX_IMAGE_BYTES} bytes can be shown. Resize it first.`,
      )
    }
    const base64 = (whole ?? (await readWhole(fd, stats.size))).toString('base64')
    context.readFileState.set(realPath, { mtimeMs: stats.mtimeMs, size: stats.size, partial: false })
    return {
      data: { type: 'image' as const, filePath: realPath, mediaType: kind.mediaType, base64 } satisfies ReadOutput,
    }
  }
  const offset = Math.max(input.offset ?? 1, 1)
  const limit = input.limit ?? DEFAULT_READ_LIMIT
  const text: NumberedText =
    (whole && offset === 1
      ? numberAsciiLines(whole, { limit, maxLineChars: MAX_LINE_CHARS, maxOutputChars: MAX_READ_OUTPUT_CHARS })
      : undefined) ?? (await numberLines(whole ?? fd, offset, limit))
  let content = text.content
  if (stats.size === 0) content = `(The file ${input.file_path} exists but is empty.)`
  else if (text.count === 0) {
    content = `(The file ${input.file_path} has ${text.totalLines} lines; offset ${offset} is past its end.)`
  } else if (text.cutAt !== undefined) {
    content += `\n\n(Output stopped at ${MAX_READ_OUTPUT_CHARS} characters. Read on with offset ${text.cutAt}.)`
  } else if (text.hasMore) {
    content += `\n\n(The file has more lines. Read on with offset ${offset + text.count}.)`
  }
  const partial = offset > 1 || text.hasMore || text.cutAt !== undefined || text.linesCut === true
  context.readFileState.set(realPath, { mtimeMs: stats.mtimeMs, size: stats.size, partial })
  return { data: { type: 'text', filePath: realPath, content } satisfies ReadOutput }
}

type NumberedText = {
  content: string
  count: number
  hasMore: boolean
  totalLines?: number | undefined
  cutAt?: number
  linesCut?: boolean
}

/** The general path: lines decoded and cut by readTextLines, numbered, stopped at MAX_READ_OUTPUT_CHARS. */
async function numberLines(file: Buffer | number, offset: number, limit: number): Promise<NumberedText> {
  const result = await readTextLines(file, { offset, limit, maxLineChars: MAX_LINE_CHARS })
  const out: string[] = []
  let length = 0
  let cutAt: number | undefined
  for (const line of result.lines) {
    const marker = line.fullLength > line.text.length ? `… [line cut: ${line.fullLength} characters]` : ''
    const text = numbered(line.number, line.text + marker)
    if (length + text.length > MAX_READ_OUTPUT_CHARS && out.length > 0) {
      cutAt = line.number
      break
    }
    out.push(text)
    length += text.length + 1
  }
  return {
    content: out.join('\n'),
    count: result.lines.length,
    hasMore: result.hasMore,
    totalLines: result.totalLines,
    ...(cutAt === undefined ? {} : { cutAt }),
    linesCut: result.lines.some((line) => line.fullLength > line.text.length),
  }
}

/** The first SNIFF_BYTES of a large file, through the threadpool. */
async function readHead(fd: number): Promise<Buffer> {
  const buffer = Buffer.alloc(SNIFF_BYTES)
  const { bytesRead } = await readAt(fd, buffer, 0, SNIFF_BYTES, 0)
  return buffer.subarray(0, bytesRead)
}

/** One synchronous stat of a path just resolved, no threadpool round trip (docs/adr/0312); null when it cannot be read. */
function statOrNull(target: string): Stats | null {
  try {
    return statSync(target, { throwIfNoEntry: false }) ?? null
  } catch {
    return null
  }
}
