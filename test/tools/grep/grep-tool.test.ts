// Pins Grep on both backends (ripgrep and GNU grep): output modes, options, limits, confinement, abort.
import { spawnSync } from 'node:child_process'
import { mkdir, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { GrepBackend } from '../../../src/tools/grep/grep-arguments.js'
import { createGrepTool, type GrepOutput } from '../../../src/tools/grep/grep-tool.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'

const available = (program: string) => spawnSync(program, ['--version'], { stdio: 'ignore' }).status === 0

for (const backend of ['rg', 'grep'] as GrepBackend[]) {
  describe.skipIf(!available(backend))(
    `Grep with ${backend}${available(backend) ? '' : ' (not installed here)'}`,
    () => {
      const tool = createGrepTool({ backend })
      let workspace: TestWorkspace
      const file = (relative: string) => path.join(workspace.cwd, relative)
      beforeEach(async () => {
        workspace = await createTestWorkspace()
        await mkdir(file('src'))
        await writeFile(file('src/a.ts'), 'import x\nconst value = 1\nfunction hello() {}\nconst VALUE = 2\n')
        await writeFile(file('src/b.js'), 'const value = 3\n')
        await writeFile(file('notes.md'), 'nothing here\nmulti\nline\n')
        await writeFile(file('binary.bin'), Buffer.from([0, 1, 2, 118, 97, 108, 117, 101]))
        const old = new Date(Date.now() - 60_000)
        await utimes(file('src/b.js'), old, old)
      })
      afterEach(() => workspace.cleanup())

      const context = (abortSignal?: AbortSignal) =>
        createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot, abortSignal })

      async function grepText(input: object): Promise<string> {
        const result = await runTool(tool, input, context())
        if (!result.ok) throw new Error(result.message)
        return tool.mapToolResult(result.data as GrepOutput).content as string
      }

      it('lists matching files, newest first, skipping binary files', async () => {
        expect(await grepText({ pattern: 'value' })).toBe(`Found 2 files\n${file('src/a.ts')}\n${file('src/b.js')}`)
        expect(await grepText({ pattern: 'absent-pattern' })).toBe('No files found')
      })

      it('shows matching lines with line numbers, case-insensitively on request', async () => {
        expect(await grepText({ pattern: 'value', path: 'src/a.ts', output_mode: 'content' })).toBe(
          `${file('src/a.ts')}:2:const value = 1`,
        )
        expect(await grepText({ pattern: 'value', path: 'src/a.ts', output_mode: 'content', '-i': true })).toBe(
          `${file('src/a.ts')}:2:const value = 1\n${file('src/a.ts')}:4:const VALUE = 2`,
        )
        expect(await grepText({ pattern: 'hello', path: 'src', output_mode: 'content', '-n': false })).toBe(
          `${file('src/a.ts')}:function hello() {}`,
        )
      })

      it('shows context lines', async () => {
        const text = await grepText({ pattern: 'hello', path: 'src/a.ts', output_mode: 'content', '-B': 1, '-A': 1 })
        expect(text).toBe(
          [
            `${file('src/a.ts')}-2-const value = 1`,
            `${file('src/a.ts')}:3:function hello() {}`,
            `${file('src/a.ts')}-4-const VALUE = 2`,
          ].join('\n'),
        )
      })

      it('counts matches per file', async () => {
        expect(await grepText({ pattern: 'value', output_mode: 'count', '-i': true })).toBe(
          `${file('src/a.ts')}:2\n${file('src/b.js')}:1\n\nFound 3 total occurrences across 2 files.`,
        )
      })

      it('filters by glob and by type', async () => {
        expect(await grepText({ pattern: 'value', glob: '*.js' })).toBe(`Found 1 file\n${file('src/b.js')}`)
        expect(await grepText({ pattern: 'value', type: 'ts' })).toBe(`Found 1 file\n${file('src/a.ts')}`)
      })

      it('applies head_limit with a note', async () => {
        const text = await grepText({ pattern: 'const', path: 'src/a.ts', output_mode: 'content', head_limit: 1 })
        expect(text).toBe(
          `${file('src/a.ts')}:2:const value = 1\n(Showing the first 1 lines; there are more. Narrow the search with path, glob or a more specific pattern.)`,
        )
      })

      it('matches across lines with multiline', async () => {
        expect(await grepText({ pattern: 'multi.line', multiline: true })).toBe(`Found 1 file\n${file('notes.md')}`)
      })

      it('treats patterns starting with a dash as patterns', async () => {
        await writeFile(file('flags.txt'), 'use --force here\n')
        expect(await grepText({ pattern: '--force' })).toBe(`Found 1 file\n${file('flags.txt')}`)
      })

      it('reports an invalid regular expression', async () => {
        const result = await runTool(tool, { pattern: '(unclosed' }, context())
        expect(result.ok).toBe(false)
      })

      it('refuses paths outside the working directories', async () => {
        expect(await runTool(tool, { pattern: 'x', path: workspace.outside }, context())).toMatchObject({
          ok: false,
          message: expect.stringContaining('outside the allowed working directories'),
        })
      })

      it('stops when the call is aborted', async () => {
        const controller = new AbortController()
        controller.abort()
        expect((await runTool(tool, { pattern: 'value' }, context(controller.signal))).ok).toBe(false)
      })
    },
  )
}

describe('Grep tool flags', () => {
  it('is read-only and concurrency-safe with a 20,000 character threshold', () => {
    const tool = createGrepTool()
    expect(tool.isReadOnly()).toBe(true)
    expect(tool.isConcurrencySafe()).toBe(true)
    expect(tool.maxResultSizeChars).toBe(20_000)
  })
})
