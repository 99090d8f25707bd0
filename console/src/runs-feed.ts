import { api, type RunSummary, unwrap } from './api.js'

export type RunFilters = { status: '' | RunSummary['status']; sessionId: string; openAsksOnly: boolean }

/** The largest page the API gives (GET /v1/runs `limit`). */
const PAGE = 200
/** How many runs the first load reads: older ones come with "Load more". */
const FIRST_LOAD = 1000

const query = (filters: RunFilters, cursor?: string) => ({
  limit: PAGE,
  ...(filters.status === '' ? {} : { status: filters.status }),
  ...(filters.sessionId.trim() === '' ? {} : { session_id: filters.sessionId.trim() }),
  ...(filters.openAsksOnly ? { has_open_asks: 'true' as const } : {}),
  ...(cursor === undefined ? {} : { cursor }),
})

async function page(filters: RunFilters, cursor?: string) {
  return unwrap(await api.GET('/v1/runs', { params: { query: query(filters, cursor) as never } }))
}

/**
 * The runs the list shows: the first load reads up to FIRST_LOAD runs, each refresh rereads the
 * newest page and every run still running (so a status change anywhere in the list shows), and
 * "Load more" follows the cursor.
 */
export class RunsFeed {
  private readonly runs = new Map<string, RunSummary>()
  private cursor: string | undefined
  private loaded = false

  constructor(private readonly filters: RunFilters) {}

  private get narrowed(): boolean {
    return this.filters.status !== '' || this.filters.openAsksOnly
  }

  get hasMore(): boolean {
    return this.cursor !== undefined
  }

  async refresh(): Promise<RunSummary[]> {
    if (!this.loaded || this.narrowed) {
      // A filtered list is reread whole (it is short): a run leaves it when it no longer matches.
      const count = Math.max(this.runs.size, this.loaded ? PAGE : FIRST_LOAD)
      this.runs.clear()
      this.cursor = undefined
      await this.loadMore(count)
      this.loaded = true
      return this.list()
    }
    const newest = await page(this.filters)
    this.merge(newest.runs)
    const wasRunning = new Set(
      [...this.runs.values()].filter((run) => run.status === 'running').map((run) => run.run_id),
    )
    if (wasRunning.size > 0) {
      const running = await page({ ...this.filters, status: 'running' })
      for (const run of running.runs) wasRunning.delete(run.run_id)
      this.merge(running.runs)
      // Runs that stopped running since: their summary now, one read each (few at a time).
      for (const runId of [...wasRunning].slice(0, 20)) {
        const view = await api.GET('/v1/runs/{run_id}', { params: { path: { run_id: runId } } })
        const known = this.runs.get(runId)
        if (view.data !== undefined && known !== undefined)
          this.runs.set(runId, {
            ...known,
            status: view.data.status,
            open_asks: [],
            ...finished(view.data.finished_at),
          })
      }
    }
    return this.list()
  }

  async loadMore(count = PAGE): Promise<RunSummary[]> {
    let read = 0
    do {
      const next = await page(this.filters, this.cursor)
      this.merge(next.runs)
      this.cursor = next.next_cursor
      read += next.runs.length
    } while (this.cursor !== undefined && read < count)
    return this.list()
  }

  /** Runs with an open ask first (oldest ask first), then newest first. */
  list(): RunSummary[] {
    return [...this.runs.values()].sort((a, b) => {
      const asksA = a.open_asks.length > 0
      const asksB = b.open_asks.length > 0
      if (asksA !== asksB) return asksA ? -1 : 1
      return compare(b.created_at, a.created_at) || compare(b.run_id, a.run_id)
    })
  }

  private merge(runs: RunSummary[]) {
    for (const run of runs) this.runs.set(run.run_id, run)
  }
}

/** Code-unit order: ISO times and ids compare correctly, and faster than localeCompare. */
const compare = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0)

const finished = (at: string | undefined) => (at === undefined ? {} : { finished_at: at })

/** Client-side search over what is loaded: run id, session id or a tool name containing the text. */
export function matchesSearch(run: RunSummary, text: string): boolean {
  const needle = text.trim().toLowerCase()
  if (needle === '') return true
  return (
    run.run_id.toLowerCase().includes(needle) ||
    run.session_id.toLowerCase().includes(needle) ||
    run.tools.some((tool) => tool.toLowerCase().includes(needle))
  )
}
