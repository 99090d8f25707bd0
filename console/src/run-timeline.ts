import type { PermissionRequest, RunEvent, ToolResultBlock } from './api.js'

type CallPhase = 'waiting' | 'queued' | 'running' | 'asking' | 'finished'

export type CallState = {
  id: string
  name: string
  input: unknown
  phase: CallPhase
  startedAt?: string
  durationMs?: number
  /** The tool's live output (Bash), its tail kept within OUTPUT_KEPT_CHARS. */
  output: string
  outputDropped: number
  result?: ToolResultBlock
  blobId?: string
  /** Bumped on every change: a view redraws only the calls that changed. */
  rev: number
}

export type Resolution = { decision: 'allow' | 'deny'; reason?: string; answered_by?: string; rule_added?: string }
export type AskState = { request: PermissionRequest; openedAt: string; resolution?: Resolution }

/** Live output shown per call: enough to follow a command, bounded so 10,000 events stay cheap. */
const OUTPUT_KEPT_CHARS = 32_768

/**
 * What the run view shows, folded from the run's events in seq order. Each event is applied
 * once: one already applied (a replay overlap) is counted and skipped, a gap is counted, so the
 * page can say it saw every event (docs/console.md).
 */
export class RunTimeline {
  readonly calls = new Map<string, CallState>()
  readonly asks = new Map<string, AskState>()
  status: 'running' | 'completed' | 'cancelled' | 'lost' = 'running'
  lastSeq = 0
  applied = 0
  duplicates = 0
  gaps = 0

  /** Calls in block order. */
  get orderedCalls(): CallState[] {
    return [...this.calls.values()]
  }

  apply(event: RunEvent): void {
    if (event.seq <= this.lastSeq) {
      this.duplicates++
      return
    }
    if (event.seq !== this.lastSeq + 1) this.gaps++
    this.lastSeq = event.seq
    this.applied++
    switch (event.type) {
      case 'run.started':
        for (const id of event.tool_use_ids) this.call(id)
        break
      case 'tool.queued':
        Object.assign(this.call(event.tool_use_id), { name: event.name, input: event.input, phase: 'queued' })
        break
      case 'tool.started':
        Object.assign(this.call(event.tool_use_id), { phase: 'running', startedAt: event.ts })
        break
      case 'tool.progress':
        this.appendOutput(this.call(event.tool_use_id), event.data)
        break
      case 'tool.completed':
        this.call(event.tool_use_id).durationMs = event.duration_ms
        break
      case 'tool.result': {
        const call = this.call(event.tool_use_id)
        call.phase = 'finished'
        call.result = event.result
        if (event.blob_id !== undefined) call.blobId = event.blob_id
        break
      }
      case 'permission.requested': {
        const { type: _type, seq: _seq, run_id: _run, ts, ...request } = event
        this.asks.set(event.request_id, { request, openedAt: ts })
        this.call(event.tool_use_id).phase = 'asking'
        break
      }
      case 'permission.resolved': {
        const ask = this.asks.get(event.request_id)
        if (ask === undefined) break
        const { type: _type, seq: _seq, run_id: _run, ts: _ts, request_id: _id, ...resolution } = event
        ask.resolution = resolution
        const call = this.calls.get(ask.request.tool_use_id)
        if (call?.phase === 'asking') call.phase = event.decision === 'allow' ? 'running' : 'queued'
        break
      }
      case 'run.completed':
        this.status = event.status
        break
    }
  }

  openAsks(): AskState[] {
    return this.status === 'running' ? [...this.asks.values()].filter((ask) => ask.resolution === undefined) : []
  }

  private call(id: string): CallState {
    let call = this.calls.get(id)
    if (call !== undefined) call.rev++
    if (call === undefined) {
      call = { id, name: '', input: undefined, phase: 'waiting', output: '', outputDropped: 0, rev: 0 }
      this.calls.set(id, call)
    }
    return call
  }

  private appendOutput(call: CallState, data: unknown): void {
    const text =
      typeof data === 'object' && data !== null && typeof (data as { output?: unknown }).output === 'string'
        ? (data as { output: string }).output
        : `${JSON.stringify(data)}\n`
    call.output += text
    if (call.output.length > OUTPUT_KEPT_CHARS) {
      const cut = call.output.length - OUTPUT_KEPT_CHARS
      call.outputDropped += cut
      call.output = call.output.slice(cut)
    }
  }
}
