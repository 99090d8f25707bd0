/**
 * The page a person opens to answer an ask: the console's (`/console`), under
 * TOOLEXEC_PUBLIC_URL when set, else a path the receiver joins to the service's address.
 */
export function askUrl(base: string | undefined, runId: string, requestId: string): string {
  const root = (base ?? '').replace(/\/+$/, '')
  return `${root}/console/runs/${encodeURIComponent(runId)}/asks/${encodeURIComponent(requestId)}`
}
