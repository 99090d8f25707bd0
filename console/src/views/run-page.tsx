import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, describeError, type RunView, unwrap } from '../api.js'
import { type FollowState, followEvents } from '../follow-events.js'
import { pathOf } from '../router.js'
import { type CallState, RunTimeline } from '../run-timeline.js'
import { AskCard, ResolvedAsk } from './ask-card.js'
import { CallCard } from './call-card.js'
import { ErrorNote, Link, PageHeading, StatusBadge, Time } from './common.js'

const STATE_TEXT: Record<FollowState['kind'], string> = {
  live: 'Live',
  reconnecting: 'Reconnecting…',
  done: 'Finished: every event received',
  failed: 'Not following',
}

/**
 * A run: its asks first, then its calls in block order, folded from the event stream (replayed
 * from the start, then live; resumed after the last seq on a reconnect) and redrawn at most once
 * per frame however fast events come.
 */
export function RunPage({ runId, requestId }: { runId: string; requestId: string | undefined }) {
  const timeline = useMemo(() => new RunTimeline(), [runId])
  const [, setVersion] = useState(0)
  const [follow, setFollow] = useState<FollowState>({ kind: 'reconnecting', detail: 'connecting' })
  const [view, setView] = useState<RunView | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [cancelNote, setCancelNote] = useState<string | undefined>(undefined)

  useEffect(() => {
    api
      .GET('/v1/runs/{run_id}', { params: { path: { run_id: runId } } })
      .then((result) => setView(unwrap(result)))
      .catch(setError)
    let frame: number | undefined
    const stop = followEvents(runId, {
      after: () => timeline.lastSeq,
      onEvents(events) {
        for (const event of events) timeline.apply(event)
        frame ??= requestAnimationFrame(() => {
          frame = undefined
          setVersion((version) => version + 1)
        })
      },
      onState: setFollow,
    })
    return () => {
      stop()
      if (frame !== undefined) cancelAnimationFrame(frame)
    }
  }, [runId, timeline])

  const cancel = async (mode: 'cancel' | 'interrupt') => {
    try {
      unwrap(await api.POST('/v1/runs/{run_id}/cancel', { params: { path: { run_id: runId } }, body: { mode } }))
      setCancelNote(mode === 'cancel' ? 'Cancel requested.' : 'Interrupt requested.')
    } catch (failure) {
      setCancelNote(describeError(failure))
    }
  }

  const status = follow.kind === 'done' || timeline.status !== 'running' ? timeline.status : (view?.status ?? 'running')
  const openAsks = timeline.openAsks()
  const resolvedAsks = [...timeline.asks.values()].filter((ask) => ask.resolution !== undefined)
  const calls = timeline.orderedCalls
  const requested = requestId === undefined ? undefined : timeline.asks.get(requestId)

  return (
    <main
      id="main"
      class="run"
      data-last-seq={timeline.lastSeq}
      data-applied={timeline.applied}
      data-duplicates={timeline.duplicates}
      data-gaps={timeline.gaps}
    >
      <PageHeading>
        Run <code>{runId}</code> <StatusBadge status={status} />
      </PageHeading>
      <ErrorNote error={error ?? (follow.kind === 'failed' ? new Error(follow.detail) : undefined)} />
      <dl class="facts">
        <dt>Session</dt>
        <dd>{view ? <Link href={pathOf.session(view.session_id)}>{view.session_id}</Link> : '…'}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={view?.created_at} />
        </dd>
        <dt>Events</dt>
        <dd aria-live="polite">
          {timeline.applied} received · {STATE_TEXT[follow.kind]}
          {'detail' in follow && follow.kind !== 'reconnecting' ? `: ${follow.detail}` : ''}
        </dd>
      </dl>
      {status === 'running' && (
        <div class="actions">
          <button type="button" class="deny" onClick={() => void cancel('cancel')}>
            Cancel run
          </button>
          <button type="button" onClick={() => void cancel('interrupt')}>
            Interrupt
          </button>
          {cancelNote !== undefined && <span role="status">{cancelNote}</span>}
        </div>
      )}
      {requestId !== undefined && follow.kind !== 'reconnecting' && requested === undefined && (
        <p class="error" role="alert">
          This run has no ask {requestId}.
        </p>
      )}
      {requested?.resolution !== undefined && (
        <p class="note" role="status">
          The ask you opened has ended: {requested.resolution.decision}
          {requested.resolution.answered_by !== undefined ? ` by key “${requested.resolution.answered_by}”` : ''}.
        </p>
      )}
      {openAsks.length > 0 && (
        <section aria-labelledby="open-asks">
          <h2 id="open-asks">Waiting for an answer ({openAsks.length})</h2>
          {openAsks.map((ask) => (
            <AskCard
              key={ask.request.request_id}
              runId={runId}
              ask={ask}
              focused={ask.request.request_id === requestId}
            />
          ))}
        </section>
      )}
      <section aria-labelledby="calls">
        <h2 id="calls">Calls ({calls.length})</h2>
        <CallList calls={calls} />
      </section>
      {resolvedAsks.length > 0 && (
        <section aria-labelledby="answered">
          <h2 id="answered">Asks answered</h2>
          <ul class="resolved">
            {resolvedAsks.map((ask) => (
              <ResolvedAsk key={ask.request.request_id} ask={ask} focused={ask.request.request_id === requestId} />
            ))}
          </ul>
        </section>
      )}
    </main>
  )
}

/** Calls drawn per step: a run of thousands of calls draws the first ones at once, the rest as the reader scrolls. */
const CALLS_PER_STEP = 100

function CallList({ calls }: { calls: CallState[] }) {
  const [shown, setShown] = useState(CALLS_PER_STEP)
  const sentinel = useRef<HTMLDivElement>(null)
  const more = calls.length > shown
  useEffect(() => {
    if (!more || sentinel.current === null) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) setShown((count) => count + CALLS_PER_STEP)
    })
    observer.observe(sentinel.current)
    return () => observer.disconnect()
  }, [more, shown])
  return (
    <>
      <ol class="calls">
        {calls.slice(0, shown).map((call) => (
          <CallCard key={call.id} call={call} rev={call.rev} />
        ))}
      </ol>
      {more && (
        <div ref={sentinel} class="more">
          <span>
            {shown} of {calls.length} calls shown.
          </span>{' '}
          <button type="button" onClick={() => setShown(calls.length)}>
            Show all {calls.length}
          </button>
        </div>
      )}
    </>
  )
}
