import { useEffect, useRef, useState } from 'preact/hooks'
import { api, describeError, unwrap } from '../api.js'
import { parseEditedInput } from '../edited-input.js'
import type { AskState } from '../run-timeline.js'
import { Time } from './common.js'

type Answer =
  | { decision: 'allow'; updated_input?: Record<string, unknown>; always?: boolean }
  | { decision: 'deny'; message?: string }

/** An open ask: what the call would do, and Allow, Allow with an edited input, or Deny with a message. */
export function AskCard({ runId, ask, focused }: { runId: string; ask: AskState; focused: boolean }) {
  const { request } = ask
  const original = JSON.stringify(request.input, null, 2)
  const [edited, setEdited] = useState(original)
  const [inputError, setInputError] = useState<string | undefined>(undefined)
  const [denyMessage, setDenyMessage] = useState('')
  const [always, setAlways] = useState(false)
  const [sending, setSending] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const card = useRef<HTMLElement>(null)
  useEffect(() => {
    if (focused) {
      card.current?.scrollIntoView({ block: 'center' })
      card.current?.focus()
    }
  }, [focused])

  const send = async (answer: Answer) => {
    setSending(true)
    setError(undefined)
    try {
      unwrap(
        await api.POST('/v1/runs/{run_id}/permissions/{request_id}', {
          params: { path: { run_id: runId, request_id: request.request_id } },
          body: answer,
        }),
      )
    } catch (failure) {
      setError(describeError(failure))
      setSending(false)
    }
  }
  const allowEdited = () => {
    const parsed = parseEditedInput(edited)
    if ('error' in parsed) return setInputError(parsed.error)
    setInputError(undefined)
    void send({ decision: 'allow', updated_input: parsed.input, ...(always ? { always: true } : {}) })
  }
  const id = request.request_id
  const hints = request.hints

  return (
    <section
      class={`ask${focused ? ' ask-focused' : ''}`}
      ref={card}
      tabIndex={-1}
      aria-labelledby={`${id}-title`}
      data-request-id={id}
    >
      <h3 id={`${id}-title`}>
        {request.tool} asks for approval <code>{request.tool_use_id}</code>
      </h3>
      <p>{request.message}</p>
      <ul class="hints">
        {hints?.read_only && <li>Reads only</li>}
        {hints?.destructive && <li class="hint-warning">Deletes or overwrites</li>}
        {hints?.network === true && <li class="hint-warning">May reach the network</li>}
        {hints?.outside_working_directories?.map((file) => (
          <li key={file} class="hint-warning">
            Outside the working directories: <code>{file}</code>
          </li>
        ))}
        {hints?.asked_by && <li>{describeAskedBy(hints.asked_by)}</li>}
        <li>
          Opened <Time iso={ask.openedAt} />
          {request.expires_at && (
            <>
              , denied unanswered at <Time iso={request.expires_at} />
            </>
          )}
        </li>
      </ul>
      <label for={`${id}-input`}>Input to run (JSON)</label>
      <textarea
        id={`${id}-input`}
        rows={Math.min(16, edited.split('\n').length + 1)}
        value={edited}
        aria-invalid={inputError !== undefined}
        aria-describedby={inputError === undefined ? undefined : `${id}-input-error`}
        onInput={(event) => setEdited(event.currentTarget.value)}
      />
      {inputError !== undefined && (
        <p id={`${id}-input-error`} class="error" role="alert">
          {inputError}
        </p>
      )}
      <label class="checkbox">
        <input type="checkbox" checked={always} onChange={(event) => setAlways(event.currentTarget.checked)} />
        Always allow calls like this in this session
      </label>
      <div class="actions">
        <button
          type="button"
          class="allow"
          disabled={sending}
          onClick={() => void send({ decision: 'allow', ...(always ? { always: true } : {}) })}
        >
          Allow
        </button>
        <button type="button" disabled={sending || edited === original} onClick={allowEdited}>
          Allow with edited input
        </button>
      </div>
      <label for={`${id}-deny`}>Message for the model (deny)</label>
      <input
        id={`${id}-deny`}
        value={denyMessage}
        placeholder="Why not, and what to do instead"
        onInput={(event) => setDenyMessage(event.currentTarget.value)}
      />
      <div class="actions">
        <button
          type="button"
          class="deny"
          disabled={sending}
          onClick={() =>
            void send({ decision: 'deny', ...(denyMessage.trim() === '' ? {} : { message: denyMessage }) })
          }
        >
          Deny
        </button>
      </div>
      {sending && error === undefined && <p aria-live="polite">Answer sent; waiting for the run…</p>}
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  )
}

type AskedBy = NonNullable<AskState['request']['hints']>['asked_by']

function describeAskedBy(askedBy: AskedBy): string {
  if (askedBy.type === 'rule') return `Asked by the rule ${askedBy.rule ?? ''}`
  const cause = {
    hook: 'a hook',
    tool: 'the tool itself',
    mode: 'the permission mode',
    default: 'no rule allowing it',
  }[askedBy.type]
  return `Asked by ${cause}${askedBy.reason ? `: ${askedBy.reason}` : ''}`
}

/** An ask that has ended: how, and who answered. */
export function ResolvedAsk({ ask, focused }: { ask: AskState; focused: boolean }) {
  const resolution = ask.resolution
  if (resolution === undefined) return null
  return (
    <li class={focused ? 'ask-focused' : undefined} data-request-id={ask.request.request_id}>
      <strong>{ask.request.tool}</strong> <code>{ask.request.tool_use_id}</code>:{' '}
      <span class={`badge badge-${resolution.decision}`}>{resolution.decision}</span>
      {resolution.answered_by !== undefined && <> by key “{resolution.answered_by}”</>}
      {resolution.reason !== undefined && <> ({resolution.reason})</>}
      {resolution.rule_added !== undefined && (
        <>
          , rule added <code>{resolution.rule_added}</code>
        </>
      )}
    </li>
  )
}
