import { z } from 'zod'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { ToolUseContext, ValidationResult } from '../../tool/tool.js'
import { checkReadBeforeWrite, recordWrite } from '../shared/check-read-before-write.js'
import { statIfExists } from '../shared/file-stats.js'
import { resolveConfinedPath, tryResolveConfinedPath } from '../shared/resolve-confined-path.js'
import { writeConfinedFile } from '../shared/write-opened-file.js'

const WRITE_TOOL_NAME = 'Write'

const WriteInputSchema = z.strictObject({
  file_path: z.string().describe('Absolute path of the file to write (created with its parent directories if missing)'),
  content: z.string().describe('The complete new content of the file'),
})
export type WriteInput = z.infer<typeof WriteInputSchema>

export type WriteOutput = { type: 'create' | 'update'; filePath: string; bytes: number }

const PROMPT = `Writes a file to the local filesystem, replacing it entirely if it exists.

- file_path must lie inside the working directories; missing parent directories are created.
- To overwrite an existing file you must have read it with Read in this session, and it must not have changed since: otherwise the write is refused.
- Prefer Edit for changing part of an existing file: it sends only the change.
- Do not create documentation or README files unless asked to.`

async function checkWrite(input: WriteInput, context: ToolUseContext): Promise<ValidationResult> {
  const confined = await tryResolveConfinedPath(input.file_path, context, 'write')
  if (!confined.ok) return { result: false, message: confined.message }
  const { realPath } = confined
  const stats = await statIfExists(realPath)
  if (stats === null) return { result: true }
  if (stats.isDirectory())
    return { result: false, message: `${input.file_path} is a directory; give the path of a file.` }
  if (!stats.isFile()) return { result: false, message: `${input.file_path} is not a regular file.` }
  return checkReadBeforeWrite(realPath, input.file_path, stats, context)
}

export const WriteTool = buildTool({
  name: WRITE_TOOL_NAME,
  ruleFamily: 'edit',
  searchHint: 'create or overwrite a file',
  inputSchema: WriteInputSchema,
  maxResultSizeChars: 100_000,
  checkPermissions: deferToPermissionRules,
  description: 'Write a file to the local filesystem',
  prompt: PROMPT,
  getPath: (input: WriteInput) => input.file_path,
  validateInput: checkWrite,
  async call(input: WriteInput, context) {
    // Checked again here: the file may have changed between validation and the call.
    const check = await checkWrite(input, context)
    if (!check.result) throw new Error(check.message)
    const existed = (await statIfExists(await resolveConfinedPath(input.file_path, context, 'write'))) !== null
    const realPath = await writeConfinedFile(input.file_path, context, input.content)
    recordWrite(realPath, context)
    const data: WriteOutput = {
      type: existed ? 'update' : 'create',
      filePath: realPath,
      bytes: Buffer.byteLength(input.content),
    }
    return { data }
  },
  mapToolResult(data: WriteOutput) {
    return {
      content:
        data.type === 'create'
          ? `File created successfully at: ${data.filePath}`
          : `The file ${data.filePath} has been updated successfully.`,
    }
  },
})
