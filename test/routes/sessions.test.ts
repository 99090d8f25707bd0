// Pins /v1/sessions: paths confined to the tenant workspace, operator rules over session rules,
// rules that can never match in the session's pool refused with the tool they likely meant,
// state (todos, files read) carried between runs, one run at a time per session, GET/DELETE.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'
import { createTestTools } from '../helpers/test-tools.js'

async function createSession(app: Awaited<ReturnType<typeof buildTestApp>>['app'], payload: object = {}) {
  return app.inject({ method: 'POST', url: '/v1/sessions', payload })
}

describe('/v1/sessions', () => {
  it('creates a session inside the workspace and reads it back', async () => {
    const { app, root } = await buildTestApp()
    const created = await createSession(app, {
      cwd: 'project',
      permission_mode: 'acceptEdits',
      permissions: { allow: ['Bash(npm run test:*)'], deny: ['Bash(rm:*)'] },
      additional_directories: ['shared'],
    })
    expect(created.statusCode).toBe(201)
    const session = created.json()
    expect(session).toMatchObject({
      cwd: path.join(root, 'workspace', 'project'),
      permission_mode: 'acceptEdits',
      permissions: { allow: ['Bash(npm run test:*)'], deny: ['Bash(rm:*)'], ask: [] },
      additional_directories: [path.join(root, 'workspace', 'shared')],
      todos: [],
      files_read: 0,
    })
    expect(existsSync(session.cwd)).toBe(true)
    const read = await app.inject({ url: `/v1/sessions/${session.session_id}` })
    expect(read.json()).toEqual(session)
  })

  it.each([
    [{ cwd: '../outside' }, 400, 'path_outside_workspace'],
    [{ additional_directories: ['/etc'] }, 400, 'path_outside_workspace'],
    [{ permissions: { allow: ['Bash(unclosed'] } }, 400, 'invalid_permission_rule'],
    [{ permission_mode: 'yolo' }, 400, 'invalid_request'],
  ])('refuses %j with %i %s', async (payload, status, code) => {
    const { app } = await buildTestApp()
    const response = await createSession(app, payload)
    expect(response.statusCode).toBe(status)
    expect(response.json().code).toBe(code)
  })

  it('refuses rules that can never match in the session pool, naming the rule and the tool it likely meant', async () => {
    const { app } = await buildTestApp()
    const refused = async (permissions: object, toolsets?: string[]) => {
      const response = await createSession(app, { permissions, ...(toolsets ? { toolsets } : {}) })
      expect(response.statusCode).toBe(400)
      expect(response.json().code).toBe('invalid_permission_rule')
      return response.json().detail as string
    }
    // A typo'd deny under bypassPermissions would have let `rm` run.
    expect(await refused({ deny: ['Bsh(rm:*)'] })).toBe(
      'permission rule "Bsh(rm:*)" names no tool of this pool (tool names are case-sensitive): did you mean Bash?',
    )
    expect(await refused({ deny: ['bash(rm:*)'] })).toContain('did you mean Bash?')
    expect(await refused({ allow: ['mcp__x(foo)'] })).toContain('"mcp__x(foo)" names no tool of this pool')
    expect(await refused({ ask: ['TodoWrite(list)'] })).toContain('TodoWrite takes no content')
    expect(await refused({ deny: ['Glob'] }, ['anthropic_client'])).toContain('"Glob" names no tool of this pool')
    // The same rules where their tools are offered.
    expect((await createSession(app, { permissions: { deny: ['Bash(rm:*)', 'Edit(.env)', 'Read'] } })).statusCode).toBe(
      201,
    )
    const client = await createSession(app, {
      toolsets: ['anthropic_client'],
      permissions: { deny: ['bash(rm:*)', 'Edit(.env)'] },
    })
    expect(client.statusCode).toBe(201)
  })

  it('refuses bypassPermissions when the operator disabled it', async () => {
    const { app } = await buildTestApp({ settings: { permissions: { disableBypassPermissionsMode: 'disable' } } })
    const response = await createSession(app, { permission_mode: 'bypassPermissions' })
    expect(response.statusCode).toBe(403)
    expect(response.json().code).toBe('permission_mode_forbidden')
  })

  it('carries todos and files read between runs, and saves what the session allows', async () => {
    const { app } = await buildTestApp()
    const session = (await createSession(app, { cwd: 'work', permissions: { allow: ['Write', 'TodoWrite'] } })).json()
    const file = path.join(session.cwd, 'notes.txt')
    const first = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        session_id: session.session_id,
        tool_uses: [
          { type: 'tool_use', id: 'w', name: 'Write', input: { file_path: file, content: 'hello\n' } },
          {
            type: 'tool_use',
            id: 't',
            name: 'TodoWrite',
            input: { todos: [{ content: 'Ship it', status: 'pending' }] },
          },
        ],
      },
    })
    expect(first.json().results.map((result: { is_error?: boolean }) => result.is_error ?? false)).toEqual([
      false,
      false,
    ])
    expect(readFileSync(file, 'utf8')).toBe('hello\n')
    await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        session_id: session.session_id,
        tool_uses: [{ type: 'tool_use', id: 'r', name: 'Read', input: { file_path: file } }],
      },
    })
    const after = (await app.inject({ url: `/v1/sessions/${session.session_id}` })).json()
    expect(after.todos).toEqual([{ content: 'Ship it', status: 'pending' }])
    expect(after.files_read).toBeGreaterThanOrEqual(1)
  })

  it('lets operator deny rules win over session allow rules', async () => {
    const { app } = await buildTestApp({ settings: { permissions: { deny: ['Write'] } } })
    const session = (await createSession(app, { permissions: { allow: ['Write'] } })).json()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        session_id: session.session_id,
        tool_uses: [
          { type: 'tool_use', id: 'w', name: 'Write', input: { file_path: path.join(session.cwd, 'x'), content: 'x' } },
        ],
      },
    })
    const [result] = response.json().results
    expect(result.is_error).toBe(true)
    expect(existsSync(path.join(session.cwd, 'x'))).toBe(false)
  })

  it('holds a session for one run at a time and frees it by run.completed', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    const session = (await createSession(app)).json()
    const gate = { type: 'tool_use', id: 'g', name: 'Gate', input: { key: 'g' } }
    const first = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { wait: false, session_id: session.session_id, tool_uses: [gate] },
    })
    const { run_id } = first.json()
    const busy = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { session_id: session.session_id, tool_uses: [gate] },
    })
    expect(busy.statusCode).toBe(409)
    expect(busy.json().code).toBe('session_busy')
    expect((await app.inject({ url: `/v1/sessions/${session.session_id}` })).json().active_run_id).toBe(run_id)
    tools.open('g')
    await runCompleted(app, run_id)
    const next = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        session_id: session.session_id,
        tool_uses: [{ type: 'tool_use', id: 'e', name: 'Echo', input: { text: 'next' } }],
      },
    })
    expect(next.statusCode).toBe(200)
  })

  it('ends the session a run without session_id was given with the run, as docs/api.md says', async () => {
    const { app } = await buildTestApp()
    const run = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { tool_uses: [{ type: 'tool_use', id: 'e', name: 'Bash', input: { command: 'echo once' } }] },
    })
    const { session_id } = run.json() as { session_id: string }
    expect(session_id).toMatch(/^ses_/)
    expect((await app.inject({ url: `/v1/sessions/${session_id}` })).json().code).toBe('session_not_found')
    const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')
    expect(docs).toContain('a fresh session of defaults that ends with the run')
  })

  it('deletes a session; a deleted or unknown one is 404', async () => {
    const { app } = await buildTestApp()
    const session = (await createSession(app)).json()
    expect((await app.inject({ method: 'DELETE', url: `/v1/sessions/${session.session_id}` })).statusCode).toBe(204)
    expect((await app.inject({ url: `/v1/sessions/${session.session_id}` })).json().code).toBe('session_not_found')
    expect((await app.inject({ method: 'DELETE', url: `/v1/sessions/${session.session_id}` })).statusCode).toBe(404)
  })
})
