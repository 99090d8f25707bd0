import { constants } from 'node:fs'
import { lstat, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { errorCode } from '../../paths/error-code.js'
import { buildTool } from '../../tool/build-tool.js'
import type { PermissionAllow } from '../../tool/permission-result.js'
import type { ToolUseContext } from '../../tool/tool.js'
import { formatFileSize, memoryMessages as messages, numberLines } from './memory-messages.js'
import { MEMORY_PREFIX, normaliseMemoryPath, resolveMemoryPath } from './resolve-memory-path.js'

const MemoryInputSchema = z.strictObject({
  command: z.enum(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']),
  path: z.string().max(4_096).optional(),
  view_range: z.array(z.number().int()).max(16).optional(),
  file_text: z.string().optional(),
  old_str: z.string().optional(),
  new_str: z.string().optional(),
  insert_line: z.number().int().optional(),
  insert_text: z.string().optional(),
  old_path: z.string().max(4_096).optional(),
  new_path: z.string().max(4_096).optional(),
})
export type MemoryInput = z.infer<typeof MemoryInputSchema>

const MAX_LINES = 999_999
/** One memory file at most; memories are notes, not data sets. */
const MAX_FILE_BYTES = 1024 * 1024

/** Where this call's /memories lives: per tenant, and per session unless the operator shares it. */
export type MemoryRootOf = (context: Pick<ToolUseContext, 'tenant' | 'sessionId'>) => string

const required = (value: string | undefined, parameter: string, command: string): string => {
  if (value === undefined) throw new Error(`Parameter \`${parameter}\` is required for command: ${command}`)
  return value
}

async function readMemoryFile(realPath: string, shown: string): Promise<string> {
  const handle = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error: unknown) => {
    throw errorCode(error) === 'ENOENT' ? new Error(messages.doesNotExist(shown)) : error
  })
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) throw new Error(messages.notAFile(shown))
    if (stats.size > MAX_FILE_BYTES) throw new Error(messages.tooLarge(shown, stats.size))
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

/** Written beside the file and renamed over it, so a reader never sees half a memory. */
async function replaceMemoryFile(realPath: string, content: string): Promise<void> {
  if (Buffer.byteLength(content) > MAX_FILE_BYTES) throw new Error(messages.tooLarge(realPath, content.length))
  const temporary = path.join(path.dirname(realPath), `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`)
  await writeFile(temporary, content, { flag: 'wx', mode: 0o600 })
  await rename(temporary, realPath).catch(async (error: unknown) => {
    await rm(temporary, { force: true })
    throw error
  })
}

async function listing(realPath: string, shown: string): Promise<string> {
  const base = normaliseMemoryPath(shown)
  const lines = [`${formatFileSize((await stat(realPath)).size)}\t${base}`]
  const visit = async (directory: string, relative: string, depth: number) => {
    const names = (await readdir(directory)).sort()
    for (const name of names) {
      if (name.startsWith('.') || name === 'node_modules') continue
      const entry = await lstat(path.join(directory, name)).catch(() => null)
      if (!entry || entry.isSymbolicLink()) continue
      const entryRelative = relative === '' ? name : `${relative}/${name}`
      if (entry.isDirectory()) {
        lines.push(`${formatFileSize(entry.size)}\t${base}/${entryRelative}/`)
        if (depth < 2) await visit(path.join(directory, name), entryRelative, depth + 1)
      } else if (entry.isFile()) {
        lines.push(`${formatFileSize(entry.size)}\t${base}/${entryRelative}`)
      }
    }
  }
  await visit(realPath, '', 1)
  return messages.directoryListing(shown, lines)
}

function occurrenceLines(content: string, needle: string): number[] {
  const lines: number[] = []
  for (let index = content.indexOf(needle); index !== -1; index = content.indexOf(needle, index + 1)) {
    lines.push(content.slice(0, index).split('\n').length)
  }
  return lines
}

async function run(input: MemoryInput, root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o700 })
  if (input.command === 'rename') {
    const from = required(input.old_path, 'old_path', 'rename')
    const to = required(input.new_path, 'new_path', 'rename')
    const [source, target] = [await resolveMemoryPath(from, root), await resolveMemoryPath(to, root)]
    if (source === root || target === root) throw new Error(messages.renameRoot)
    if ((await lstat(source).catch(() => null)) === null) throw new Error(messages.doesNotExist(from))
    if ((await lstat(target).catch(() => null)) !== null) throw new Error(messages.destinationExists(to))
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 })
    await rename(source, target)
    return messages.renamed(from, to)
  }
  const shown = required(input.path, 'path', input.command)
  const realPath = await resolveMemoryPath(shown, root)
  switch (input.command) {
    case 'view': {
      const stats = await lstat(realPath).catch(() => null)
      if (stats === null) throw new Error(messages.doesNotExist(shown))
      if (stats.isDirectory()) return listing(realPath, shown)
      const lines = (await readMemoryFile(realPath, shown)).split('\n')
      if (lines.length > MAX_LINES) throw new Error(messages.tooManyLines(shown, lines.length))
      const range = input.view_range
      if (range?.length !== 2) return messages.fileView(shown, numberLines(lines, 1))
      const start = Math.max(1, range[0] as number) - 1
      const end = range[1] === -1 ? lines.length : (range[1] as number)
      return messages.fileView(shown, numberLines(lines.slice(start, end), start + 1))
    }
    case 'create': {
      const text = required(input.file_text, 'file_text', 'create')
      if (realPath === root) throw new Error(messages.alreadyExists(shown))
      if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw new Error(messages.tooLarge(shown, Buffer.byteLength(text)))
      await mkdir(path.dirname(realPath), { recursive: true, mode: 0o700 })
      await writeFile(realPath, text, { flag: 'wx', mode: 0o600 }).catch((error: unknown) => {
        throw errorCode(error) === 'EEXIST' ? new Error(messages.alreadyExists(shown)) : error
      })
      return messages.created(shown)
    }
    case 'str_replace': {
      const oldStr = required(input.old_str, 'old_str', 'str_replace')
      const newStr = input.new_str ?? ''
      const content = await readMemoryFile(realPath, shown)
      const lines = oldStr === '' ? [] : occurrenceLines(content, oldStr)
      if (lines.length === 0) throw new Error(messages.noMatch(oldStr, shown))
      if (lines.length > 1) throw new Error(messages.multipleMatches(oldStr, lines))
      const index = content.indexOf(oldStr)
      const updated = content.slice(0, index) + newStr + content.slice(index + oldStr.length)
      await replaceMemoryFile(realPath, updated)
      const changed = (lines[0] as number) - 1
      const start = Math.max(0, changed - 2)
      const updatedLines = updated.split('\n')
      return messages.edited(
        numberLines(updatedLines.slice(start, Math.min(updatedLines.length, changed + 3)), start + 1),
      )
    }
    case 'insert': {
      if (input.insert_line === undefined) throw new Error('Parameter `insert_line` is required for command: insert')
      const text = required(input.insert_text ?? input.new_str, 'insert_text', 'insert')
      const lines = (await readMemoryFile(realPath, shown)).split('\n')
      const line = input.insert_line
      if (line < 0 || line > lines.length) throw new Error(messages.insertLine(line, lines.length))
      lines.splice(line, 0, text.replace(/\n$/, ''))
      await replaceMemoryFile(realPath, lines.join('\n'))
      return messages.inserted(shown)
    }
    default: {
      if (realPath === root) throw new Error(messages.deleteRoot)
      if ((await lstat(realPath).catch(() => null)) === null) throw new Error(messages.doesNotExist(shown))
      await rm(realPath, { recursive: true })
      return messages.deleted(shown)
    }
  }
}

/** Refusals the path itself causes; any other is the store's (EACCES, ENOSPC, …). */
const PATH_CODES: ReadonlySet<string> = new Set(['ENAMETOOLONG', 'EINVAL', 'EISDIR', 'ENOTEMPTY', 'ELOOP'])

/**
 * A file system refusal carries the host path in its message: the model gets the code and the
 * `/memories/…` path it sent, never where the store lives (issues 20 and 28).
 */
function withoutHostPath(input: MemoryInput) {
  return (error: unknown): never => {
    const code = errorCode(error)
    if (code === undefined || typeof (error as { syscall?: unknown }).syscall !== 'string') throw error
    const shown = input.command === 'rename' ? `${input.old_path} → ${input.new_path}` : (input.path ?? MEMORY_PREFIX)
    throw new Error(PATH_CODES.has(code) ? messages.pathRefused(shown, code) : messages.storeFailed(code))
  }
}

/**
 * Anthropic's memory tool (`memory_20250818`): a directory the model keeps notes in across
 * conversations, every path under `/memories`. Stored by toolexec, outside every workspace
 * (docs/adr/0143-memory-store.md).
 */
export function createMemoryTool(rootOf: MemoryRootOf) {
  return buildTool({
    name: 'memory',
    // Its files live in the memory store, outside the working directories (docs/adr/0143).
    ruleFamily: 'none',
    apiType: 'memory_20250818',
    searchHint: 'remember notes across conversations in /memories',
    inputSchema: MemoryInputSchema,
    maxResultSizeChars: 100_000,
    description: `Read and write notes under ${MEMORY_PREFIX}`,
    prompt: `Anthropic's memory tool: view, create, str_replace, insert, delete and rename files under ${MEMORY_PREFIX}, kept across conversations.`,
    isReadOnly: (input: MemoryInput) => input.command === 'view',
    isConcurrencySafe: (input: MemoryInput) => input.command === 'view',
    // The store is the tenant's own and outside every workspace: nothing to ask about unless a
    // deny or ask rule names `memory` (docs/adr/0144-client-tool-permissions.md).
    checkPermissions: async (input: MemoryInput): Promise<PermissionAllow> => ({
      behavior: 'allow',
      updatedInput: input,
    }),
    async call(input: MemoryInput, context) {
      return { data: await run(input, rootOf(context)).catch(withoutHostPath(input)) }
    },
  })
}
