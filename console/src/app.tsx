import { useEffect, useState } from 'preact/hooks'
import { api, keyState } from './api.js'
import { type Route, useRoute } from './router.js'
import { AuditPage } from './views/audit-page.js'
import { Link } from './views/common.js'
import { KeyForm } from './views/key-form.js'
import { RunPage } from './views/run-page.js'
import { RunsPage } from './views/runs-page.js'
import { SessionPage, SessionsPage } from './views/sessions-page.js'
import { ToolsPage } from './views/tools-page.js'

/** Redraws when the key changes or a request is refused for want of one. */
function useKeyState() {
  const [, setVersion] = useState(0)
  useEffect(() => keyState.subscribe(() => setVersion((version) => version + 1)), [])
}

/** Asks the service once whether it wants a key (a loopback service without keys does not). */
function useNeedsKey(): boolean | undefined {
  const [needed, setNeeded] = useState<boolean | undefined>(undefined)
  useEffect(() => {
    void api.GET('/v1/runs', { params: { query: { limit: 1 } as never } }).then(
      ({ response }) => setNeeded(response.status === 401),
      // Unreachable: the pages say so themselves.
      () => setNeeded(false),
    )
  }, [])
  return needed
}

const NAV: { page: Route['page']; label: string; href: string }[] = [
  { page: 'runs', label: 'Runs', href: '/console' },
  { page: 'sessions', label: 'Sessions', href: '/console/sessions' },
  { page: 'tools', label: 'Tools', href: '/console/tools' },
  { page: 'audit', label: 'Audit', href: '/console/audit' },
]

const SECTION: Partial<Record<Route['page'], Route['page']>> = { run: 'runs', session: 'sessions' }

export function App() {
  useKeyState()
  const route = useRoute()
  const needsKey = useNeedsKey()
  if (needsKey === undefined) return <main id="main">Loading…</main>
  if (keyState.refused() || (needsKey && !keyState.hasKey())) return <KeyForm />
  const current = SECTION[route.page] ?? route.page
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">toolexec</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.page}>
                <Link href={item.href} current={item.page === current}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        {keyState.hasKey() && (
          <button type="button" class="quiet" onClick={() => keyState.forget()}>
            Forget key
          </button>
        )}
      </header>
      <Page route={route} />
    </>
  )
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'runs':
      return <RunsPage />
    case 'run':
      return <RunPage key={route.runId} runId={route.runId} requestId={route.requestId} />
    case 'sessions':
      return <SessionsPage />
    case 'session':
      return <SessionPage key={route.sessionId} sessionId={route.sessionId} />
    case 'tools':
      return <ToolsPage />
    case 'audit':
      return <AuditPage />
    case 'not-found':
      return (
        <main id="main">
          <h1>Not found</h1>
          <p>
            The console has no page at this address. <Link href="/console">See the runs</Link>.
          </p>
        </main>
      )
  }
}
