// Pins the one path-containment rule (docs/adr/0065, 0066): isInside's edge cases, both real-path
// resolvers over real temp dirs and symlinks, and that sessions, tools and working directories use it.
import { mkdir, mkdtemp, realpath, rename, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isInside, isInsideAny } from '../../src/paths/is-inside.js'
import { resolveRealPath, resolveRealPathSync } from '../../src/paths/resolve-real-path.js'
import {
  realWorkingDirectories,
  WorkingDirectoryEscapeError,
  workingDirectories,
} from '../../src/paths/working-directories.js'
import { confineDirectory } from '../../src/sessions/confine-path.js'
import { resolveConfinedPath } from '../../src/tools/shared/resolve-confined-path.js'

const LONG = 'a'.repeat(300) // past NAME_MAX (255) on Linux file systems

describe('isInside', () => {
  it.each([
    ['a child named ..cache', '/work', '/work/..cache', true],
    ['a file below a child named ..cache', '/work', '/work/..cache/x', true],
    ['..', '/work', '/work/..', false],
    ['../x', '/work', '/work/../x', false],
    ['an absolute path outside', '/work', '/etc/passwd', false],
    ['a sibling sharing the prefix', '/work', '/work-sibling/x', false],
    ['another case (Linux is case-sensitive)', '/work', '/Work/x', false],
    ['the root itself', '/work', '/work', true],
    ['the file-system root and anything', '/', '/etc', true],
    ['trailing separators on both sides', '/work/', '/work/a/', true],
    ['the root with a trailing separator', '/work//', '/work', true],
    ['a NUL byte in the candidate', '/work', '/work/a\u0000b', false],
    ['a NUL byte in the root', '/wo\u0000rk', '/wo\u0000rk/a', false],
    ['a relative candidate', '/work', 'work/a', false],
    ['a very long component', '/work', `/work/${LONG}`, true],
  ])('%s', (_name, root, candidate, inside) => {
    expect(isInside(root, candidate)).toBe(inside)
  })

  it('answers as path.relative does for every mix of components (docs/adr/0524)', () => {
    const reference = (root: string, candidate: string) => {
      const relative = path.relative(root, candidate)
      return (
        relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
      )
    }
    const parts = ['a', 'b', 'ab', '..cache', '..', '.', '', 'a.']
    const paths = ['/']
    for (const first of parts) {
      paths.push(`/${first}`, `/${first}/`)
      for (const second of parts) paths.push(`/${first}/${second}`, `/a/${first}/${second}`)
    }
    for (const root of paths) {
      for (const candidate of paths)
        expect([root, candidate, isInside(root, candidate)]).toEqual([root, candidate, reference(root, candidate)])
    }
  })

  it('isInsideAny accepts a candidate inside any one of the roots', () => {
    expect(isInsideAny(['/a', '/b'], '/b/c')).toBe(true)
    expect(isInsideAny(['/a', '/b'], '/c')).toBe(false)
    expect(isInsideAny([], '/a')).toBe(false)
  })
})

describe('real paths and containment on a real file system', () => {
  let temp: string
  let root: string
  let outside: string
  beforeAll(async () => {
    temp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-paths-')))
    root = path.join(temp, 'root')
    outside = path.join(temp, 'outside')
    await Promise.all([mkdir(path.join(root, '..cache'), { recursive: true }), mkdir(outside)])
    await mkdir(path.join(root, 'sub'))
    await symlink(outside, path.join(root, 'out-link'))
    await symlink(root, path.join(outside, 'in-link'))
    await symlink(path.join(outside, 'missing'), path.join(root, 'dangling-out'))
    await symlink(path.join(root, 'missing'), path.join(root, 'dangling-in'))
  })
  afterAll(() => rm(temp, { recursive: true, force: true }))

  // [name, candidate below temp, inside per async resolver, inside per sync resolver]
  type Row = [string, (paths: { root: string; outside: string }) => string, boolean | 'throws', boolean]
  const rows: Row[] = [
    ['a ..cache directory', (p) => path.join(p.root, '..cache', 'new-file'), true, true],
    ['..', (p) => `${p.root}/..`, false, false],
    ['../x', (p) => `${p.root}/../outside`, false, false],
    ['an absolute path outside', (p) => path.join(p.outside, 'file'), false, false],
    ['a symlink inside pointing outside', (p) => path.join(p.root, 'out-link', 'secret'), false, false],
    ['a symlink outside pointing inside', (p) => path.join(p.outside, 'in-link', 'file'), true, true],
    // The sync resolver (session setup) keeps a dangling link as a name under its real parent;
    // calls use the async one, which follows it to its target.
    ['a dangling link pointing outside', (p) => path.join(p.root, 'dangling-out'), false, true],
    ['a dangling link pointing inside', (p) => path.join(p.root, 'dangling-in'), true, true],
    ['another case of the root', (p) => path.join(path.dirname(p.root), 'ROOT', 'file'), false, false],
    ['a trailing separator', (p) => `${p.root}/sub/`, true, true],
    ['the root itself', (p) => p.root, true, true],
    // realpath refuses these outright: the async resolver throws, so a call fails closed.
    ['a NUL byte', (p) => `${p.root}/a\u0000b`, 'throws', false],
    ['a very long component', (p) => path.join(p.root, LONG), 'throws', true],
  ]

  it.each(rows)('%s', async (_name, candidateOf, asyncInside, syncInside) => {
    const candidate = candidateOf({ root, outside })
    if (asyncInside === 'throws') await expect(resolveRealPath(candidate)).rejects.toThrow()
    else expect(isInside(root, await resolveRealPath(candidate))).toBe(asyncInside)
    expect(isInside(root, resolveRealPathSync(candidate))).toBe(syncInside)
  })

  it('follows a dangling link to its target, and the sync resolver stops at its deepest real ancestor', async () => {
    expect(await resolveRealPath(path.join(root, 'dangling-out', 'x'))).toBe(path.join(outside, 'missing', 'x'))
    expect(resolveRealPathSync(path.join(root, 'dangling-out', 'x'))).toBe(path.join(root, 'dangling-out', 'x'))
  })

  it('sessions and tools use the same rule: a ..cache directory is inside', async () => {
    expect(await confineDirectory(root, '..cache', 'cwd')).toBe(path.join(root, '..cache'))
    await expect(confineDirectory(root, '../outside', 'cwd')).rejects.toThrow('outside the workspace')
    const context = { cwd: root, permissionContext: { additionalWorkingDirectories: [] } }
    expect(await resolveConfinedPath('..cache/notes.txt', context, 'write')).toBe(path.join(root, '..cache/notes.txt'))
    await expect(resolveConfinedPath('../outside/x', context, 'write')).rejects.toThrow('outside')
  })

  it('resolves the same whether every directory exists (no promise inside) or one is missing (the async fallback)', async () => {
    const present = path.join(root, 'sub')
    const blobs = path.join(root, '..cache')
    const context = {
      cwd: root,
      permissionContext: { additionalWorkingDirectories: [present] },
      environment: { blobDirectory: blobs, workspaceRoot: root },
    }
    expect(await realWorkingDirectories(context, 'read')).toEqual([root, present, blobs])
    const missing = path.join(root, 'not-yet')
    const withMissing = { ...context, permissionContext: { additionalWorkingDirectories: [present, missing] } }
    expect(await realWorkingDirectories(withMissing, 'write')).toEqual([root, present, missing])
  })

  it('lists the working directories once, and refuses a call once one resolves outside the workspace root', async () => {
    const granted = path.join(root, 'granted')
    const context = {
      cwd: path.join(outside, 'in-link'),
      permissionContext: { additionalWorkingDirectories: [granted] },
      environment: { blobDirectory: path.join(temp, 'blobs'), workspaceRoot: root },
    }
    expect(workingDirectories(context, 'write')).toEqual([context.cwd, granted])
    expect(workingDirectories(context, 'read')).toEqual([context.cwd, granted, path.join(temp, 'blobs')])
    expect(await realWorkingDirectories(context, 'read')).toEqual([root, granted, path.join(temp, 'blobs')])
    // A symlink planted where the granted directory was must not widen the grant: the call is refused.
    await symlink(outside, granted)
    await expect(realWorkingDirectories(context, 'read')).rejects.toBeInstanceOf(WorkingDirectoryEscapeError)
    await expect(resolveConfinedPath(path.join(root, 'file'), context, 'write')).rejects.toThrow(
      `The working directory ${granted} no longer lies inside the workspace`,
    )
  })

  it('keeps the root where it really was: a root replaced by a link to another tree refuses its calls (docs/adr/0523)', async () => {
    const tenant = path.join(temp, 'tenant')
    const other = path.join(temp, 'other-tenant')
    await mkdir(path.join(tenant, 'work'), { recursive: true })
    await mkdir(path.join(other, 'work'), { recursive: true })
    const context = {
      cwd: path.join(tenant, 'work'),
      permissionContext: { additionalWorkingDirectories: [] },
      environment: { workspaceRoot: tenant },
    }
    expect(await realWorkingDirectories(context, 'write')).toEqual([path.join(tenant, 'work')])
    await rename(tenant, path.join(temp, 'tenant-moved'))
    await symlink(other, tenant)
    // Resolved afresh, the root would follow the link and the cwd with it into the other tree.
    await expect(realWorkingDirectories(context, 'write')).rejects.toThrow(
      `The working directory ${context.cwd} no longer lies inside the workspace`,
    )
  })
})
