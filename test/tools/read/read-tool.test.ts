// Pins Read: numbered lines, offset/limit, long lines, empty/binary/image files, confinement, readFileState.
import { appendFileSync } from 'node:fs'
import { readFile, rename, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SNIFF_BYTES } from '../../../src/tools/read/detect-file-kind.js'
import { ReadTool } from '../../../src/tools/read/read-tool.js'
import { SYNC_IO_LIMIT } from '../../../src/tools/shared/descriptor-io.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { okData, runTool } from '../helpers.js'

let workspace: TestWorkspace
beforeEach(async () => {
  workspace = await createTestWorkspace()
})
afterEach(() => workspace.cleanup())

const context = () => createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })

async function readText(input: object, ctx = context()): Promise<string> {
  const result = await runTool(ReadTool, input, ctx)
  if (!result.ok) throw new Error(result.message)
  return ReadTool.mapToolResult(result.data as never).content as string
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

describe('Read', () => {
  it('numbers lines like cat -n and records the read', async () => {
    await writeFile(path.join(workspace.cwd, 'a.txt'), 'alpha\nbeta\r\ngamma')
    const ctx = context()
    expect(await readText({ file_path: 'a.txt' }, ctx)).toBe('     1\talpha\n     2\tbeta\n     3\tgamma')
    const record = ctx.readFileState.get(path.join(workspace.cwd, 'a.txt'))
    expect(record).toMatchObject({ size: 17, partial: false })
  })

  it('reads a range with offset and limit and says how to go on', async () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n')
    await writeFile(path.join(workspace.cwd, 'long.txt'), `${lines}\n`)
    const ctx = context()
    const text = await readText({ file_path: 'long.txt', offset: 4, limit: 2 }, ctx)
    expect(text).toBe('     4\tline 4\n     5\tline 5\n\n(The file has more lines. Read on with offset 6.)')
    expect(ctx.readFileState.get(path.join(workspace.cwd, 'long.txt'))?.partial).toBe(true)
    expect(await readText({ file_path: 'long.txt', offset: 50 })).toContain('has 10 lines; offset 50 is past its end')
  })

  it('defaults to 2000 lines', async () => {
    await writeFile(path.join(workspace.cwd, 'many.txt'), Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join('\n'))
    const text = await readText({ file_path: 'many.txt' })
    expect(text).toContain('  2000\t2000\n\n(The file has more lines. Read on with offset 2001.)')
    expect(text).not.toContain('2001\t')
  })

  it('cuts lines longer than 2000 characters with a marker', async () => {
    await writeFile(path.join(workspace.cwd, 'wide.txt'), `${'x'.repeat(5000)}\nshort\n`)
    const text = await readText({ file_path: 'wide.txt' })
    expect(text).toContain(`     1\t${'x'.repeat(2000)}… [line cut: 5000 characters]\n     2\tshort`)
  })

  it('notes an empty file', async () => {
    await writeFile(path.join(workspace.cwd, 'empty.txt'), '')
    expect(await readText({ file_path: 'empty.txt' })).toBe('(The file empty.txt exists but is empty.)')
  })

  it('returns images as base64 image blocks', async () => {
    await writeFile(path.join(workspace.cwd, 'dot.png'), PNG)
    const result = await runTool(ReadTool, { file_path: 'dot.png' }, context())
    expect(result.ok).toBe(true)
    const mapped = ReadTool.mapToolResult(okData(result))
    expect(mapped.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } },
    ])
  })

  it('reads files above and below the synchronous bound alike (docs/adr/0480)', async () => {
    const line = (index: number) => `line ${index} ${'.'.repeat(40)}`
    for (const [name, count] of [
      ['small.txt', 100],
      ['large.txt', 3_000],
    ] as const) {
      await writeFile(
        path.join(workspace.cwd, name),
        `${Array.from({ length: count }, (_, i) => line(i + 1)).join('\n')}\n`,
      )
    }
    expect(Buffer.byteLength(await readFile(path.join(workspace.cwd, 'large.txt')))).toBeGreaterThan(SYNC_IO_LIMIT)
    const small = await readText({ file_path: 'small.txt' })
    const large = await readText({ file_path: 'large.txt', limit: 100 })
    expect(large).toBe(`${small}\n\n(The file has more lines. Read on with offset 101.)`)
    expect(await readText({ file_path: 'large.txt', offset: 2_999 })).toBe(
      `  2999\t${line(2_999)}\n  3000\t${line(3_000)}`,
    )
    const image = Buffer.concat([PNG, Buffer.alloc(SYNC_IO_LIMIT)])
    await writeFile(path.join(workspace.cwd, 'big.png'), image)
    const result = await runTool(ReadTool, { file_path: 'big.png' }, context())
    expect(ReadTool.mapToolResult(okData(result)).content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.toString('base64') } },
    ])
    const nulLate = Buffer.concat([Buffer.alloc(SNIFF_BYTES, 'a'), Buffer.from([0])])
    await writeFile(path.join(workspace.cwd, 'late-nul.txt'), nulLate)
    expect((await runTool(ReadTool, { file_path: 'late-nul.txt' }, context())).ok).toBe(true)
    await writeFile(
      path.join(workspace.cwd, 'big-nul.txt'),
      Buffer.concat([Buffer.from([0]), Buffer.alloc(SYNC_IO_LIMIT, 'a')]),
    )
    const refused = await runTool(ReadTool, { file_path: 'big-nul.txt' }, context())
    expect(refused.ok ? '' : refused.message).toContain('it contains NUL bytes')
  })

  it('refuses binary files and files whose image extension lies', async () => {
    await writeFile(path.join(workspace.cwd, 'blob.dat'), Buffer.from([1, 2, 0, 3]))
    await writeFile(path.join(workspace.cwd, 'fake.png'), 'not a png')
    const binary = await runTool(ReadTool, { file_path: 'blob.dat' }, context())
    expect(binary).toMatchObject({ ok: false, message: expect.stringContaining('contains NUL bytes') })
    const fake = await runTool(ReadTool, { file_path: 'fake.png' }, context())
    expect(fake).toMatchObject({ ok: false, message: expect.stringContaining('not a valid image/png image') })
  })

  it('fails validation for missing files, directories and paths outside', async () => {
    expect(await runTool(ReadTool, { file_path: 'nope.txt' }, context())).toMatchObject({
      ok: false,
      message: expect.stringContaining('File does not exist: nope.txt'),
    })
    expect(await runTool(ReadTool, { file_path: '.' }, context())).toMatchObject({
      ok: false,
      message: expect.stringContaining('is a directory'),
    })
    await writeFile(path.join(workspace.outside, 'secret.txt'), 'secret')
    const escaped = await runTool(ReadTool, { file_path: '../outside/secret.txt' }, context())
    expect(escaped).toMatchObject({
      ok: false,
      message: expect.stringContaining('outside the allowed working directories'),
    })
  })

  it('names the file once per call: a link swapped in between two Reads is refused (docs/adr/0522)', async () => {
    const file = path.join(workspace.cwd, 'swap.txt')
    await writeFile(file, 'inside\n')
    expect(await readText({ file_path: 'swap.txt' })).toBe('     1\tinside')
    await writeFile(path.join(workspace.outside, 'secret.txt'), 'secret\n')
    await rename(file, path.join(workspace.cwd, 'moved.txt'))
    await symlink(path.join(workspace.outside, 'secret.txt'), file)
    expect(await runTool(ReadTool, { file_path: 'swap.txt' }, context())).toMatchObject({
      ok: false,
      message: expect.stringContaining('outside the allowed working directories'),
    })
  })

  it('reads by path when its call comes in a later turn than its validation (docs/adr/0522)', async () => {
    await writeFile(path.join(workspace.cwd, 'later.txt'), 'later\n')
    const ctx = context()
    const input = { file_path: 'later.txt' }
    expect(await ReadTool.validateInput?.(input, ctx)).toEqual({ result: true })
    await new Promise((resolve) => setImmediate(resolve))
    const result = await ReadTool.call(input, ctx)
    expect(ReadTool.mapToolResult(result.data as never).content).toBe('     1\tlater')
  })

  it('reads what a file holds at the call, though validation’s stats are older (docs/adr/0522)', async () => {
    const file = path.join(workspace.cwd, 'grows.txt')
    await writeFile(file, 'one\n')
    const ctx = context()
    const input = { file_path: 'grows.txt' }
    expect(await ReadTool.validateInput?.(input, ctx)).toEqual({ result: true })
    appendFileSync(file, 'two\n')
    const result = await ReadTool.call(input, ctx)
    expect(ReadTool.mapToolResult(result.data as never).content).toBe('     1\tone\n     2\ttwo')
  })

  it('reads persisted outputs in the blob directory', async () => {
    const ctx = context()
    const blob = await ctx.blobs.write(ctx.tenant, 'run-1-x.txt', 'persisted\n')
    expect(await readText({ file_path: blob.path }, ctx)).toBe('     1\tpersisted')
  })

  it('rejects unknown input keys', async () => {
    expect((await runTool(ReadTool, { file_path: 'a', extra: 1 }, context())).ok).toBe(false)
  })
})
