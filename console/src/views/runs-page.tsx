import { useMemo, useState } from 'preact/hooks'
import type { RunSummary } from '../api.js'
import { pathOf } from '../router.js'
import { matchesSearch, type RunFilters, RunsFeed } from '../runs-feed.js'
import { ErrorNote, Link, PageHeading, StatusBadge, Time, usePolling } from './common.js'

const REFRESH_MS = 2000

export function RunsPage() {
  const [filters, setFilters] = useState<RunFilters>(() => ({
    status: '',
    sessionId: new URLSearchParams(location.search).get('session') ?? '',
    openAsksOnly: false,
  }))
  const [search, setSearch] = useState('')
  const [runs, setRuns] = useState<RunSummary[] | undefined>(undefined)
  const [loadError, setLoadError] = useState<unknown>(undefined)
  const feed = useMemo(() => new RunsFeed(filters), [filters])
  const { error } = usePolling(async () => setRuns(await feed.refresh()), REFRESH_MS, [feed])
  const shown = (runs ?? []).filter((run) => matchesSearch(run, search))
  const waiting = (runs ?? []).filter((run) => run.open_asks.length > 0).length

  return (
    <main id="main">
      <PageHeading>Runs</PageHeading>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select
            value={filters.status}
            onChange={(event) => setFilters({ ...filters, status: event.currentTarget.value as RunFilters['status'] })}
          >
            <option value="">any</option>
            <option value="running">running</option>
            <option value="completed">completed</option>
            <option value="cancelled">cancelled</option>
            <option value="lost">lost</option>
          </select>
        </label>
        <label>
          Session
          <input
            value={filters.sessionId}
            placeholder="ses_…"
            onChange={(event) => setFilters({ ...filters, sessionId: event.currentTarget.value })}
          />
        </label>
        <label class="checkbox">
          <input
            type="checkbox"
            checked={filters.openAsksOnly}
            onChange={(event) => setFilters({ ...filters, openAsksOnly: event.currentTarget.checked })}
          />
          Only runs waiting for an answer
        </label>
        <label>
          Search
          <input
            type="search"
            value={search}
            placeholder="run, session or tool"
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
        </label>
      </form>
      <ErrorNote error={error ?? loadError} />
      <p class="summary" aria-live="polite">
        {runs === undefined
          ? 'Loading…'
          : `${shown.length} of ${runs.length} runs shown, ${waiting} waiting for an answer. Refreshed every ${REFRESH_MS / 1000} s.`}
      </p>
      <table class="runs">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Open asks</th>
            <th scope="col">Tools</th>
            <th scope="col">Session</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((run) => (
            <RunRow key={run.run_id} run={run} />
          ))}
        </tbody>
      </table>
      {feed.hasMore && (
        <button type="button" onClick={() => feed.loadMore().then(setRuns, setLoadError)}>
          Load more
        </button>
      )}
    </main>
  )
}

function RunRow({ run }: { run: RunSummary }) {
  return (
    <tr class={run.open_asks.length > 0 ? 'waiting' : undefined} data-run-id={run.run_id}>
      <td>
        <Link href={pathOf.run(run.run_id)}>{run.run_id}</Link>
      </td>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td>
        {run.open_asks.length === 0
          ? '—'
          : run.open_asks.map((ask) => (
              <Link key={ask.request_id} class="ask-link" href={`${pathOf.run(run.run_id)}/asks/${ask.request_id}`}>
                {ask.tool}
              </Link>
            ))}
      </td>
      <td>{run.tools.join(', ')}</td>
      <td>
        <Link href={pathOf.session(run.session_id)}>{run.session_id}</Link>
      </td>
      <td>
        <Time iso={run.created_at} />
      </td>
    </tr>
  )
}
