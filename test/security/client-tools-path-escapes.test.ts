// Pins that the text editor and memory client tools never reach outside their roots: absolute
// paths elsewhere, `..`, symlinks (to files, to directories, dangling) and look-alike prefixes are
// refused before anything is read or written (docs/adr/0143-memory-store.md, docs/security.md).
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryTool, type MemoryInput } from '../../src/tools/memory/memory-tool.js'
import { createTextEditorTool, type TextEditorInput } from '../../src/tools/text-editor/text-editor-tool.js'
import { createTestContext, useTestWorkspace } from '../helpers/tool-context.js'

const editor = createTextEditorTool({ type: 'text_editor_20250728' })

async function setup() {
  const workspace = await useTestWorkspace()
  const secret = path.join(workspace.outside, 'secret.txt')
  await writeFile(secret, 'SECRET\n')
  const context = createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot })
  const memoryRoot = path.join(workspace.root, 'memory', 'memories')
  const memory = createMemoryTool(() => memoryRoot)
  const edit = async (input: TextEditorInput) => {
    const valid = await editor.validateInput(input, context)
    if (!valid.result) return { refused: true, text: valid.message }
    try {
      return {
        refused: false,
        text: (await editor.call(input, context)).data,
      }
    } catch (error) {
      return { refused: true, text: (error as Error).message }
    }
  }
  const remember = async (input: MemoryInput) => {
    try {
      return {
        refused: false,
        text: (await memory.call(input, context)).data,
      }
    } catch (error) {
      return { refused: true, text: (error as Error).message }
    }
  }
  return { workspace, secret, memoryRoot, edit, remember }
}

describe('text editor path escapes', () => {
  const cases: Array<[string, (w: Awaited<ReturnType<typeof setup>>) => Promise<TextEditorInput>, RegExp]> = [
    [
      'an absolute path outside',
      async ({ secret }) => ({ command: 'view', path: secret }),
      /outside the allowed working directories/,
    ],
    ['/etc/passwd', async () => ({ command: 'view', path: '/etc/passwd' }), /outside the allowed working directories/],
    ['the root directory', async () => ({ command: 'view', path: '/' }), /outside the allowed working directories/],
    [
      '.. out of the cwd',
      async ({ workspace }) => ({ command: 'view', path: `${workspace.cwd}/../outside/secret.txt` }),
      /outside the allowed working directories/,
    ],
    ['a relative path', async () => ({ command: 'view', path: '../outside/secret.txt' }), /is not an absolute path/],
    ['~', async () => ({ command: 'view', path: '~/.ssh/id_rsa' }), /is not an absolute path/],
    [
      'a symlink to a file outside',
      async ({ workspace, secret }) => {
        await symlink(secret, path.join(workspace.cwd, 'link.txt'))
        return { command: 'view', path: path.join(workspace.cwd, 'link.txt') }
      },
      /outside the allowed working directories/,
    ],
    [
      'create through a symlinked directory',
      async ({ workspace }) => {
        await symlink(workspace.outside, path.join(workspace.cwd, 'out'))
        return { command: 'create', path: path.join(workspace.cwd, 'out', 'planted.txt'), file_text: 'x' }
      },
      /outside the allowed working directories/,
    ],
    [
      'str_replace on a file outside',
      async ({ secret }) => ({ command: 'str_replace', path: secret, old_str: 'SECRET', new_str: 'gone' }),
      /outside the allowed working directories/,
    ],
    [
      'insert through a dangling symlink',
      async ({ workspace }) => {
        await symlink(path.join(workspace.outside, 'new.txt'), path.join(workspace.cwd, 'dangling'))
        return { command: 'create', path: path.join(workspace.cwd, 'dangling'), file_text: 'x' }
      },
      /outside the allowed working directories/,
    ],
  ]
  for (const [name, input, refusal] of cases) {
    it(`refuses ${name}`, async () => {
      const setupResult = await setup()
      const result = await setupResult.edit(await input(setupResult))
      expect(result.refused).toBe(true)
      expect(result.text).toMatch(refusal)
      expect(await readFile(setupResult.secret, 'utf8')).toBe('SECRET\n')
      expect(await readdir(setupResult.workspace.outside)).toEqual(['secret.txt'])
    })
  }
})

describe('memory path escapes', () => {
  const cases: Array<[string, (w: Awaited<ReturnType<typeof setup>>) => Promise<MemoryInput>, RegExp]> = [
    [
      '/etc/passwd',
      async () => ({ command: 'view', path: '/etc/passwd' }),
      /^Path must start with \/memories, got: \/etc\/passwd$/,
    ],
    [
      'a look-alike prefix',
      async () => ({ command: 'create', path: '/memoriesX/a.md', file_text: 'x' }),
      /^Path must start with \/memories/,
    ],
    ['a relative path', async () => ({ command: 'view', path: 'memories/a.md' }), /^Path must start with \/memories/],
    [
      '.. after /memories',
      async () => ({ command: 'view', path: '/memories/../outside/secret.txt' }),
      /would escape \/memories directory/,
    ],
    [
      '.. deeper down',
      async () => ({ command: 'create', path: '/memories/a/../../x.md', file_text: 'x' }),
      /would escape \/memories directory/,
    ],
    ['a NUL byte', async () => ({ command: 'view', path: '/memories/a\u0000b' }), /would escape \/memories directory/],
    [
      'an absolute outside path as the rename target',
      async () => ({ command: 'rename', old_path: '/memories/a.md', new_path: '/tmp/a.md' }),
      /^Path must start with \/memories/,
    ],
    [
      '.. as the rename target',
      async () => ({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/../../a.md' }),
      /would escape \/memories directory/,
    ],
    [
      'a file outside as the rename source',
      async () => ({ command: 'rename', old_path: '/etc/hosts', new_path: '/memories/hosts' }),
      /^Path must start with \/memories/,
    ],
    [
      'a symlink to a file outside',
      async ({ memoryRoot, secret }) => {
        await mkdir(memoryRoot, { recursive: true })
        await symlink(secret, path.join(memoryRoot, 'link.md'))
        return { command: 'view', path: '/memories/link.md' }
      },
      /via symlink/,
    ],
    [
      'create through a symlinked directory',
      async ({ memoryRoot, workspace }) => {
        await mkdir(memoryRoot, { recursive: true })
        await symlink(workspace.outside, path.join(memoryRoot, 'out'))
        return { command: 'create', path: '/memories/out/planted.md', file_text: 'x' }
      },
      /via symlink/,
    ],
    [
      'delete through a symlinked directory',
      async ({ memoryRoot, workspace }) => {
        await mkdir(memoryRoot, { recursive: true })
        await symlink(workspace.outside, path.join(memoryRoot, 'out'))
        return { command: 'delete', path: '/memories/out/secret.txt' }
      },
      /via symlink/,
    ],
  ]
  for (const [name, input, refusal] of cases) {
    it(`refuses ${name}`, async () => {
      const setupResult = await setup()
      const result = await setupResult.remember(await input(setupResult))
      expect(result.refused).toBe(true)
      expect(result.text).toMatch(refusal)
      expect(await readFile(setupResult.secret, 'utf8')).toBe('SECRET\n')
      expect(await readdir(setupResult.workspace.outside)).toEqual(['secret.txt'])
    })
  }
})
