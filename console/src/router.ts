import { useEffect, useState } from 'preact/hooks'

/** The console's own paths, all under /console: links the webhook sends open them directly. */
export type Route =
  | { page: 'runs' }
  | { page: 'run'; runId: string; requestId?: string }
  | { page: 'sessions' }
  | { page: 'session'; sessionId: string }
  | { page: 'tools' }
  | { page: 'audit' }
  | { page: 'not-found' }

export function parseRoute(pathname: string): Route {
  const parts = pathname
    .replace(/^\/console\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent)
  const [first, second, third, fourth] = parts
  if (first === undefined) return { page: 'runs' }
  if (first === 'runs' && second !== undefined && parts.length === 2) return { page: 'run', runId: second }
  if (first === 'runs' && second !== undefined && third === 'asks' && fourth !== undefined && parts.length === 4)
    return { page: 'run', runId: second, requestId: fourth }
  if (first === 'sessions' && second === undefined) return { page: 'sessions' }
  if (first === 'sessions' && second !== undefined && parts.length === 2) return { page: 'session', sessionId: second }
  if (first === 'tools' && parts.length === 1) return { page: 'tools' }
  if (first === 'audit' && parts.length === 1) return { page: 'audit' }
  return { page: 'not-found' }
}

export const pathOf = {
  runs: () => '/console',
  run: (runId: string) => `/console/runs/${encodeURIComponent(runId)}`,
  session: (sessionId: string) => `/console/sessions/${encodeURIComponent(sessionId)}`,
}

export function navigate(path: string): void {
  if (path === location.pathname + location.search) return
  history.pushState(null, '', path)
  dispatchEvent(new PopStateEvent('popstate'))
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname))
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname))
    addEventListener('popstate', update)
    return () => removeEventListener('popstate', update)
  }, [])
  return route
}

/** A same-page link: a plain click navigates in place, a modified click opens a tab as usual. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  navigate(anchor.pathname + anchor.search)
}
