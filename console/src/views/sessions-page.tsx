import { useState } from 'preact/hooks'
import { api, unwrap } from '../api.js'
import { navigate, pathOf } from '../router.js'
import { ErrorNote, Link, PageHeading, Time, usePolling } from './common.js'

/**
 * The sessions of the tenant's recent runs (the API lists runs, not sessions: docs/console.md),
 * and any session by id.
 */
export function SessionsPage() {
  const [wanted, setWanted] = useState('')
  const { data, error } = usePolling(
    async () => {
      const page = unwrap(await api.GET('/v1/runs', { params: { query: { limit: 200 } as never } }))
      const sessions = new Map<string, { runs: number; last: string }>()
      for (const run of page.runs) {
        const known = sessions.get(run.session_id)
        if (known === undefined) sessions.set(run.session_id, { runs: 1, last: run.created_at })
        else known.runs++
      }
      return [...sessions.entries()]
    },
    5000,
    [],
  )
  return (
    <main id="main">
      <PageHeading>Sessions</PageHeading>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault()
          if (wanted.trim() !== '') navigate(pathOf.session(wanted.trim()))
        }}
      >
        <label>
          Session id
          <input value={wanted} placeholder="ses_…" onInput={(event) => setWanted(event.currentTarget.value)} />
        </label>
        <button type="submit">Open</button>
      </form>
      <ErrorNote error={error} />
      <table>
        <caption>Sessions of the 200 newest runs</caption>
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Runs</th>
            <th scope="col">Last run</th>
          </tr>
        </thead>
        <tbody>
          {(data ?? []).map(([sessionId, { runs, last }]) => (
            <tr key={sessionId}>
              <td>
                <Link href={pathOf.session(sessionId)}>{sessionId}</Link>
              </td>
              <td>{runs}</td>
              <td>
                <Time iso={last} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  )
}

export function SessionPage({ sessionId }: { sessionId: string }) {
  const { data: session, error } = usePolling(
    async () => unwrap(await api.GET('/v1/sessions/{session_id}', { params: { path: { session_id: sessionId } } })),
    5000,
    [sessionId],
  )
  return (
    <main id="main">
      <PageHeading>
        Session <code>{sessionId}</code>
      </PageHeading>
      <ErrorNote error={error} />
      {session && (
        <>
          <dl class="facts">
            <dt>Working directory</dt>
            <dd>
              <code>{session.cwd}</code>
            </dd>
            <dt>Permission mode</dt>
            <dd>{session.permission_mode}</dd>
            <dt>Additional directories</dt>
            <dd>{session.additional_directories.join(', ') || '—'}</dd>
            <dt>Files read</dt>
            <dd>{session.files_read}</dd>
            <dt>Running now</dt>
            <dd>
              {session.active_run_id ? (
                <Link href={pathOf.run(session.active_run_id)}>{session.active_run_id}</Link>
              ) : (
                '—'
              )}
            </dd>
            <dt>Created</dt>
            <dd>
              <Time iso={session.created_at} />
            </dd>
            <dt>Expires when idle</dt>
            <dd>
              <Time iso={session.expires_at} />
            </dd>
          </dl>
          <h2>Rules</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Allow</th>
                <th scope="col">Ask</th>
                <th scope="col">Deny</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                {(['allow', 'ask', 'deny'] as const).map((kind) => (
                  <td key={kind}>
                    <ul class="rules">
                      {session.permissions[kind].map((rule) => (
                        <li key={rule}>
                          <code>{rule}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
          <h2>Todos</h2>
          {session.todos.length === 0 ? (
            <p>None.</p>
          ) : (
            <ul class="todos">
              {session.todos.map((todo) => (
                <li key={todo.content}>
                  <span class={`badge badge-${todo.status}`}>{todo.status}</span> {todo.content}
                </li>
              ))}
            </ul>
          )}
          <p>
            <Link href={`/console?session=${encodeURIComponent(sessionId)}`}>Runs of this session</Link>
          </p>
        </>
      )}
    </main>
  )
}
