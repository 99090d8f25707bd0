import { useState } from 'preact/hooks'
import { type AuditRecord, api, describeError, unwrap } from '../api.js'
import { pathOf } from '../router.js'
import { ErrorNote, Json, Link, PageHeading, Time, usePolling } from './common.js'

type AuditFilters = {
  run_id: string
  session_id: string
  tool: string
  kind: '' | 'decision' | 'call' | 'secret'
  decision: '' | 'allow' | 'deny'
}

const EMPTY: AuditFilters = { run_id: '', session_id: '', tool: '', kind: '', decision: '' }

/** Only the filters given: the API refuses empty values. */
const queryOf = (filters: AuditFilters, cursor?: string) => ({
  limit: 100,
  ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value.trim() !== '')),
  ...(cursor === undefined ? {} : { cursor }),
})

/** The audit trail (docs/audit.md): who allowed what, and how each call ended, newest first. */
export function AuditPage() {
  const [draft, setDraft] = useState<AuditFilters>(EMPTY)
  const [filters, setFilters] = useState<AuditFilters>(EMPTY)
  const [older, setOlder] = useState<AuditRecord[]>([])
  const [cursor, setCursor] = useState<string | undefined>(undefined)
  const [moreError, setMoreError] = useState<string | undefined>(undefined)
  const { data, error } = usePolling(
    async () => {
      const page = unwrap(await api.GET('/v1/audit', { params: { query: queryOf(filters) as never } }))
      setOlder([])
      setCursor(page.next_cursor)
      return page.records
    },
    0,
    [filters],
  )
  const loadMore = async () => {
    try {
      const page = unwrap(await api.GET('/v1/audit', { params: { query: queryOf(filters, cursor) as never } }))
      setOlder([...older, ...page.records])
      setCursor(page.next_cursor)
    } catch (failure) {
      setMoreError(describeError(failure))
    }
  }
  const field = (name: 'run_id' | 'session_id' | 'tool', label: string) => (
    <label>
      {label}
      <input value={draft[name]} onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })} />
    </label>
  )
  const records = [...(data ?? []), ...older]
  return (
    <main id="main">
      <PageHeading>Audit trail</PageHeading>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault()
          setFilters(draft)
        }}
      >
        {field('run_id', 'Run')}
        {field('session_id', 'Session')}
        {field('tool', 'Tool')}
        <label>
          Kind
          <select
            value={draft.kind}
            onChange={(event) => setDraft({ ...draft, kind: event.currentTarget.value as AuditFilters['kind'] })}
          >
            <option value="">any</option>
            <option value="decision">decision</option>
            <option value="call">call</option>
            <option value="secret">secret</option>
          </select>
        </label>
        <label>
          Decision
          <select
            value={draft.decision}
            onChange={(event) =>
              setDraft({ ...draft, decision: event.currentTarget.value as AuditFilters['decision'] })
            }
          >
            <option value="">any</option>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={error} />
      <table class="audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Kind</th>
            <th scope="col">Tool</th>
            <th scope="col">Decision or outcome</th>
            <th scope="col">By</th>
            <th scope="col">Run</th>
            <th scope="col">Input</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={record.id}>
              <td>
                <Time iso={record.ts} />
              </td>
              <td>{record.kind}</td>
              <td>
                {record.secret ? (
                  <>
                    secret <code>{record.secret.name}</code>
                  </>
                ) : (
                  <>
                    {record.tool} <code>{record.tool_use_id}</code>
                  </>
                )}
              </td>
              <td>{record.decision ?? record.outcome ?? record.secret?.action}</td>
              <td>{describeSource(record)}</td>
              <td>{record.run_id && <Link href={pathOf.run(record.run_id)}>{record.run_id}</Link>}</td>
              <td>
                <details>
                  <summary>
                    <code>{record.input_sha256.slice(0, 12)}</code>
                  </summary>
                  {record.input === undefined ? (
                    <p>Inputs are not kept (TOOLEXEC_AUDIT_INPUTS).</p>
                  ) : (
                    <Json value={record.input} />
                  )}
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data !== undefined && records.length === 0 && <p>No records match.</p>}
      {cursor !== undefined && (
        <button type="button" onClick={() => void loadMore()}>
          Load more
        </button>
      )}
      {moreError !== undefined && (
        <p class="error" role="alert">
          {moreError}
        </p>
      )}
    </main>
  )
}

function describeSource(record: AuditRecord): string {
  if (record.secret) return `key “${record.secret.key_name}”`
  const source = record.source
  if (source === undefined) return '—'
  if (source.type === 'answer')
    return `key “${source.key_name ?? '?'}”${source.via === 'mcp_input_request' ? ', in an MCP client' : ''}${source.edited_input ? ', edited input' : ''}${source.always ? ', always' : ''}`
  if (source.type === 'rule') return `rule ${source.rule ?? ''}`
  if (source.type === 'mode') return `mode ${source.mode ?? ''}`
  return source.reason === undefined ? source.type : `${source.type}: ${source.reason}`
}
