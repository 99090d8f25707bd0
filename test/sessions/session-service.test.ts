// Pins the session service: paths confined to the tenant workspace (symlinks resolved), the
// operator's rules laid over a session at each run and stripped before saving, bypass refusal,
// and a session created already held by its run (docs/adr/0179-one-control-channel-per-instance.md).
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PermissionsSettings } from '../../src/permissions/permissions-settings-schema.js'
import { createFileBlobStore } from '../../src/results/file-blob-store.js'
import { createSessionService } from '../../src/sessions/session-service.js'
import { createMemorySessionStore } from '../../src/stores/memory/memory-session-store.js'
import { updatePermissionContext } from '../../src/tool/permission-context.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'toolexec-sessions-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

function service(operator?: PermissionsSettings) {
  const blobs = createFileBlobStore({ root: path.join(root, 'blobs'), ttlMs: 60_000 })
  return createSessionService({
    store: createMemorySessionStore(),
    blobs,
    operator,
    workspaceOf: (tenant) => path.join(root, 'workspace', tenant),
    environmentOf: (tenant) => ({
      sandbox: 'off',
      multiTenant: true,
      blobDirectory: blobs.directory(tenant),
      workspaceRoot: path.join(root, 'workspace', tenant),
    }),
    idleTtlMs: 1000,
    now: () => 5000,
  })
}

describe('createSessionService', () => {
  it('creates a session held by the run that made it: another run is refused until it is released', async () => {
    const sessions = service()
    const session = await sessions.create('acme', {}, 'run_1')
    expect(session.activeRunId).toBe('run_1')
    await expect(sessions.claim('acme', session.sessionId, 'run_2')).rejects.toMatchObject({ code: 'session_busy' })
    await sessions.release(session, 'run_1')
    expect((await sessions.claim('acme', session.sessionId, 'run_2')).activeRunId).toBe('run_2')
  })

  it('creates the cwd inside the tenant workspace and refuses a symlink that leads out', async () => {
    const sessions = service()
    const session = await sessions.create('acme', { cwd: 'a/b' })
    expect(session.cwd).toBe(path.join(await realpath(root), 'workspace', 'acme', 'a', 'b'))
    await mkdir(path.join(root, 'outside'))
    await symlink(path.join(root, 'outside'), path.join(root, 'workspace', 'acme', 'escape'))
    await expect(sessions.create('acme', { cwd: 'escape' })).rejects.toMatchObject({ code: 'path_outside_workspace' })
    await expect(sessions.create('acme', { cwd: '/etc' })).rejects.toMatchObject({ code: 'path_outside_workspace' })
    expect(sessions.expiresAt(session)).toBe(6000)
  })

  it('lays operator rules over the session for a run, and saves only the session layer', async () => {
    const sessions = service({ deny: ['Bash(rm:*)'], allow: ['Read'] })
    const session = await sessions.create('acme', { permissions: { allow: ['Bash(rm:*)'] } })
    const context = sessions.contextFor(session)
    expect(context.permissionContext.alwaysDenyRules.operatorSettings).toEqual(['Bash(rm:*)'])
    expect(context.permissionContext.alwaysAllowRules).toMatchObject({
      operatorSettings: ['Read'],
      session: ['Bash(rm:*)'],
    })
    expect(context.environment).toMatchObject({ multiTenant: true, blobDirectory: path.join(root, 'blobs', 'acme') })
    await sessions.claim('acme', session.sessionId, 'run_1')
    const changed = updatePermissionContext(context.permissionContext, { mode: 'acceptEdits' })
    await sessions.release(session, 'run_1', {
      ...context,
      permissionContext: changed,
      todos: [{ content: 'x', status: 'pending' }],
    })
    const saved = await sessions.get('acme', session.sessionId)
    expect(saved.permissionContext.mode).toBe('acceptEdits')
    expect(saved.permissionContext.alwaysDenyRules.operatorSettings).toBeUndefined()
    expect(saved.todos).toEqual([{ content: 'x', status: 'pending' }])
  })

  it('gives a run that changed nothing the same context objects as the run before (docs/adr/0503)', async () => {
    const sessions = service({ deny: ['Bash(rm:*)'], allow: ['Read'] })
    const created = await sessions.create('acme', { permissions: { allow: ['Bash(ls:*)'] } })
    const first = sessions.contextFor(created)
    await sessions.claim('acme', created.sessionId, 'run_1')
    await sessions.release(created, 'run_1', first)
    // From the first release on, the session holds only its own layer, as one object.
    const afterFirst = await sessions.get('acme', created.sessionId)
    const second = sessions.contextFor(afterFirst)
    await sessions.claim('acme', created.sessionId, 'run_2')
    await sessions.release(afterFirst, 'run_2', second)
    const afterSecond = await sessions.get('acme', created.sessionId)
    // The same object, so the caches keyed by it (tool pool, parsed rules) hit on the next run.
    expect(afterSecond.permissionContext).toBe(afterFirst.permissionContext)
    expect(afterSecond.permissionContext.alwaysDenyRules.operatorSettings).toBeUndefined()
    expect(sessions.contextFor(afterSecond).permissionContext).toBe(second.permissionContext)
  })

  it('saves what stripping gives when a context does not survive the layer unchanged', async () => {
    // bypassPermissions under an operator that forbids it: the layer turns it to default.
    const sessions = service({ disableBypassPermissionsMode: 'disable' })
    const created = await sessions.create('acme')
    const own = updatePermissionContext(created.permissionContext, { mode: 'bypassPermissions' })
    const session = { ...created, permissionContext: own }
    const context = sessions.contextFor(session)
    expect(context.permissionContext.mode).toBe('default')
    await sessions.claim('acme', created.sessionId, 'run_1')
    await sessions.release(session, 'run_1', context)
    const saved = await sessions.get('acme', created.sessionId)
    expect(saved.permissionContext).not.toBe(own)
    expect(saved.permissionContext.mode).toBe('default')
  })

  it('refuses bypassPermissions when the operator disabled it, and a second run on a busy session', async () => {
    const sessions = service({ disableBypassPermissionsMode: 'disable' })
    await expect(sessions.create('acme', { permission_mode: 'bypassPermissions' })).rejects.toMatchObject({
      code: 'permission_mode_forbidden',
    })
    const session = await sessions.create('acme')
    expect(sessions.contextFor(session).permissionContext.isBypassPermissionsModeAvailable).toBe(false)
    await sessions.claim('acme', session.sessionId, 'run_1')
    await expect(sessions.claim('acme', session.sessionId, 'run_2')).rejects.toMatchObject({ code: 'session_busy' })
    await expect(sessions.claim('globex', session.sessionId, 'run_2')).rejects.toMatchObject({
      code: 'session_not_found',
    })
  })
})
