import { memo } from 'preact/compat'
import { useState } from 'preact/hooks'
import { authorization, describeError, type ToolResultBlock } from '../api.js'
import type { CallState } from '../run-timeline.js'
import { Json } from './common.js'

const PHASE_LABELS: Record<CallState['phase'], string> = {
  waiting: 'waiting',
  queued: 'queued',
  running: 'running',
  asking: 'waiting for an answer',
  finished: 'finished',
}

/** One call of the timeline; redrawn only when its `rev` changes, so a long run stays responsive. */
export const CallCard = memo(
  function CallCard({ call }: { call: CallState; rev: number }) {
    const failed = call.result?.is_error === true
    const label = call.phase === 'finished' ? (failed ? 'error' : 'ok') : PHASE_LABELS[call.phase]
    return (
      <li class={`call call-${call.phase}${failed ? ' call-failed' : ''}`} data-tool-use-id={call.id}>
        <header>
          <h3>
            {call.name || 'call'} <code>{call.id}</code>
          </h3>
          <span class={`badge badge-${failed ? 'error' : call.phase}`}>{label}</span>
          {call.durationMs !== undefined && <span class="duration">{formatDuration(call.durationMs)}</span>}
        </header>
        {call.input !== undefined && (
          <details>
            <summary>Input</summary>
            <Json value={call.input} />
          </details>
        )}
        {call.output !== '' && call.result === undefined && (
          <section aria-label={`Output of ${call.id} so far`}>
            {call.outputDropped > 0 && <p class="note">{call.outputDropped} earlier characters not shown</p>}
            <pre class="output">{call.output}</pre>
          </section>
        )}
        {call.result !== undefined && <ResultView result={call.result} blobId={call.blobId} />}
      </li>
    )
  },
  (before, after) => before.call === after.call && before.rev === after.rev,
)

function ResultView({ result, blobId }: { result: ToolResultBlock; blobId: string | undefined }) {
  const blocks = typeof result.content === 'string' ? [{ type: 'text' as const, text: result.content }] : result.content
  return (
    <section class="result" aria-label="Result">
      {blocks.map((block, index) => {
        if (block.type === 'text')
          return (
            <pre key={index} class={result.is_error ? 'result-text result-error' : 'result-text'}>
              {block.text}
            </pre>
          )
        if (block.type === 'image')
          return (
            <img
              key={index}
              alt="Returned by the tool"
              src={`data:${block.source.media_type};base64,${block.source.data}`}
            />
          )
        return (
          <p key={index}>
            Tool reference: <code>{block.tool_name}</code>
          </p>
        )
      })}
      {blobId !== undefined && <BlobView blobId={blobId} />}
    </section>
  )
}

/** The full output behind a preview: shown in place or downloaded, fetched with the key. */
function BlobView({ blobId }: { blobId: string }) {
  const [text, setText] = useState<string | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const fetchBlob = async () => {
    const response = await fetch(`/v1/blobs/${encodeURIComponent(blobId)}`, { headers: authorization() })
    if (!response.ok) throw new Error(`The service answered ${response.status} for the full output`)
    return response.blob()
  }
  const show = () =>
    fetchBlob()
      .then((blob) => blob.text())
      .then(setText, (failure: unknown) => setError(describeError(failure)))
  const download = () =>
    fetchBlob().then(
      (blob) => {
        const link = document.createElement('a')
        link.href = URL.createObjectURL(blob)
        link.download = `${blobId}.txt`
        link.click()
        setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
      },
      (failure: unknown) => setError(describeError(failure)),
    )
  return (
    <div class="blob">
      <button type="button" onClick={show}>
        Show full output
      </button>
      <button type="button" onClick={download}>
        Download full output
      </button>
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {text !== undefined && <pre class="output blob-text">{text}</pre>}
    </div>
  )
}

const formatDuration = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`)
