// Pins path confinement: relative and absolute paths, `..`, `~`, symlinks out (files, parents, dangling), blob dir
// read-only, and the refusal-as-a-value form the tools validate with.
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  hasLongComponent,
  PathConfinementError,
  resolveConfinedPath,
  tryResolveConfinedPath,
} from '../../../src/tools/shared/resolve-confined-path.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'

let workspace: TestWorkspace
beforeEach(async () => {
  workspace = await createTestWorkspace()
})
afterEach(() => workspace.cleanup())

const context = (extra: string[] = []) =>
  createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot, additionalWorkingDirectories: extra })

describe('resolveConfinedPath', () => {
  it('resolves relative paths against the session cwd, and absolute paths inside it', async () => {
    expect(await resolveConfinedPath('a/b.txt', context(), 'write')).toBe(path.join(workspace.cwd, 'a/b.txt'))
    expect(await resolveConfinedPath(path.join(workspace.cwd, 'x'), context(), 'read')).toBe(
      path.join(workspace.cwd, 'x'),
    )
    expect(await resolveConfinedPath('.', context(), 'read')).toBe(workspace.cwd)
  })

  it('refuses ../ escapes and absolute paths outside, naming the allowed directories', async () => {
    await expect(resolveConfinedPath('../outside/secret', context(), 'read')).rejects.toThrow(
      `is outside the allowed working directories: ${workspace.cwd}`,
    )
    await expect(resolveConfinedPath('/etc/passwd', context(), 'read')).rejects.toBeInstanceOf(PathConfinementError)
    await expect(resolveConfinedPath(`${workspace.cwd}-sibling/x`, context(), 'read')).rejects.toThrow('outside')
  })

  it('does not expand ~', async () => {
    await expect(resolveConfinedPath('~/notes.txt', context(), 'read')).rejects.toThrow(
      'starts with ~, which is not expanded',
    )
  })

  it('admits additional working directories', async () => {
    const target = path.join(workspace.outside, 'ok.txt')
    expect(await resolveConfinedPath(target, context([workspace.outside]), 'write')).toBe(target)
  })

  it('follows a symlinked file pointing out of the workspace and refuses it', async () => {
    await writeFile(path.join(workspace.outside, 'secret'), 'x')
    await symlink(path.join(workspace.outside, 'secret'), path.join(workspace.cwd, 'link'))
    await expect(resolveConfinedPath('link', context(), 'read')).rejects.toThrow(`resolves to ${workspace.outside}`)
  })

  it('catches a not-yet-existing file under a symlinked parent directory', async () => {
    await symlink(workspace.outside, path.join(workspace.cwd, 'escape'))
    await expect(resolveConfinedPath('escape/new/file.txt', context(), 'write')).rejects.toThrow('outside')
  })

  it('catches a dangling symlink whose target is outside', async () => {
    await symlink(path.join(workspace.outside, 'not-yet'), path.join(workspace.cwd, 'dangling'))
    await expect(resolveConfinedPath('dangling', context(), 'write')).rejects.toThrow('outside')
  })

  it('accepts a symlink that stays inside', async () => {
    await mkdir(path.join(workspace.cwd, 'real'))
    await symlink(path.join(workspace.cwd, 'real'), path.join(workspace.cwd, 'alias'))
    expect(await resolveConfinedPath('alias/f.txt', context(), 'write')).toBe(path.join(workspace.cwd, 'real/f.txt'))
  })

  it('lets Read into the blob directory but not Write', async () => {
    const ctx = context()
    const blobFile = path.join(ctx.environment.blobDirectory, 'run-1-t.txt')
    expect(await resolveConfinedPath(blobFile, ctx, 'read')).toBe(blobFile)
    await expect(resolveConfinedPath(blobFile, ctx, 'write')).rejects.toThrow('read-only directory')
  })

  it('gives the refusal as a value for validation, a name past 255 bytes included', async () => {
    // The working directories it was checked against come with it (docs/adr/0462).
    expect(await tryResolveConfinedPath('a.txt', context(), 'write')).toEqual({
      ok: true,
      realPath: path.join(workspace.cwd, 'a.txt'),
      roots: [workspace.cwd],
    })
    expect(await tryResolveConfinedPath('/etc/passwd', context(), 'read')).toEqual({
      ok: false,
      message: `The path /etc/passwd is outside the allowed working directories: ${workspace.cwd}, ${context().environment.blobDirectory}.`,
    })
    // A name past NAME_MAX is the model's to fix: a refusal, not a fault (docs/adr/0093-errors-name-only-the-tenant-tree.md).
    expect(await tryResolveConfinedPath('a'.repeat(300), context(), 'read')).toEqual({
      ok: false,
      message: 'A component of the path is longer than 255 bytes.',
    })
  })
})

describe('hasLongComponent', () => {
  // The test it replaces (docs/adr/0604): every component split out and measured.
  const bySplit = (filePath: string) => filePath.split(/[\\/]/).some((name) => Buffer.byteLength(name) > 255)

  it('answers as splitting and measuring every component does, around 85 units and 255 bytes', () => {
    const units = ['a', 'é', '€', '😀', '\ud800', '/', '\\']
    const cases: string[] = ['', '/', '//', 'a'.repeat(255), 'a'.repeat(256), `/x/${'a'.repeat(256)}/y`]
    for (const unit of units) {
      for (const count of [84, 85, 86, 127, 128, 129, 254, 255, 256]) {
        const run = unit.repeat(count)
        cases.push(run, `/work/${run}`, `${run}/tail`, `/a\\${run}\\b`, `/a/${run}x/b`)
      }
    }
    // Mixed units: a component's bytes add up across kinds.
    for (let seed = 0; seed < 400; seed++) {
      let text = '/'
      const length = 60 + ((seed * 37) % 220)
      for (let index = 0; index < length; index++) text += units[(seed * 7 + index * 13) % units.length]
      cases.push(text)
    }
    for (const filePath of cases) expect([filePath, hasLongComponent(filePath)]).toEqual([filePath, bySplit(filePath)])
  })
})
