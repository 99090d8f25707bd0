import type Anthropic from '@anthropic-ai/sdk'
import type { RunEvent } from '../events/run-event.js'
import type { Logger } from '../logging/logger.js'
import type { ToolResultBlock } from '../messages/content-blocks.js'
import { lostExecutorMessage, REJECT_MESSAGE } from '../messages/tool-error-messages.js'
import type { RunManager } from '../runs/run-manager.js'
import type { InputLimits } from '../runs/run-request.js'
import type { CallJournal } from '../stores/call-journal.js'
import { isFinalRefusal, sleep } from './api-status.js'
import { readSessionEvents, type SessionEvent } from './read-session-events.js'
import { createStallWatch } from './stall-watch.js'
import { type SessionContentBlock, toSessionContent } from './to-session-content.js'
import { toToolUseBlock } from './to-tool-use-block.js'
import { createTurnRuns } from './turn-runs.js'

export type ServeSessionOptions = {
  /** Scoped to the work item's credential. */
  client: Anthropic
  maSessionId: string
  tenant: string
  /** The toolexec session its calls run in. */
  sessionId: string
  /** This instance, as the journal names it. */
  owner: string
  journal: CallJournal
  runManager: Pick<RunManager, 'start' | 'subscribe'>
  limits: InputLimits
  log: Logger
  /** Aborts when the claim ends; `lost()` then says whether answers may still be sent. */
  signal: AbortSignal
  lost: () => boolean
  /** How long a session whose turn ended is held with nothing to do. */
  idleMs: number
  /** After this long with calls waited on and none running here, the session counts as stalled. */
  stalledAfterMs: number
  /** Shows the stall on the session's run in GET /v1/runs (`since` undefined: over). */
  markStalled: (runId: string, since: string | undefined) => Promise<void>
}

export type SessionEnd = 'ended' | 'idle' | 'released'

/** Sending one result: transient failures are retried while the claim holds. */
const SEND_RETRY_MS = [100, 250, 500, 1000, 2000, 5000] as const

/**
 * One Managed Agents session served here (docs/managed-agents.md): each `agent.tool_use` runs in
 * the turn's toolexec run, its result goes back as `user.tool_result`. Asks wait for their
 * confirmation; an interrupt cancels what runs; the journal keeps a call from running twice, here
 * or on another instance (docs/adr/0402).
 */
export function createSessionServer(options: ServeSessionOptions) {
  const { client, maSessionId, journal, owner, log } = options
  const stop = new AbortController()
  const signal = AbortSignal.any([options.signal, stop.signal])
  const answered = new Set<string>()
  const verdicts = new Map<string, 'allow' | 'deny'>()
  const held = new Map<string, SessionEvent>()
  /** Calls an interrupt settled before this worker attached: never run (anthropic-sdk-go#393). */
  const cutBefore = new Set<string>()
  /** Claimed here and not answered yet, id → tool name. */
  const inFlight = new Map<string, string>()
  /** Calls the session waits on (its last `requires_action`), and since when none ran here. */
  let waitedOn: string[] = []
  let idleTimer: NodeJS.Timeout | undefined
  let end: SessionEnd = 'released'
  /** Set when the journal shows another claim holds this session's calls. */
  let taken = false

  const stall = createStallWatch({
    maSessionId,
    stalledAfterMs: options.stalledAfterMs,
    runId: () => turns.runId,
    markStalled: options.markStalled,
    log,
  })
  const turns = createTurnRuns({
    runManager: options.runManager,
    tenant: options.tenant,
    sessionId: options.sessionId,
    limits: options.limits,
    log,
    signal,
    onEvent: onRunEvent,
  })

  function onRunEvent(event: RunEvent) {
    if (event.type === 'tool.started') void noteStarted(event.tool_use_id)
    else if (event.type === 'tool.result') void answer(event.result)
  }

  /** Another claim took the call over: this claim is lost, whatever its heartbeat has seen yet. */
  async function noteStarted(toolUseId: string) {
    const ours = await journal.started(maSessionId, toolUseId, owner).catch((error: unknown) => {
      logFault(error)
      return true
    })
    if (ours) return
    log.error({ maSessionId, toolUseId }, 'another claim took this call over: the claim here is lost')
    taken = true
    turns.cancel('shutdown')
    stop.abort()
  }

  const logFault = (error: unknown) => log.error({ err: error, maSessionId }, 'the call journal failed')

  async function send(toolUseId: string, content: SessionContentBlock[], isError: boolean): Promise<void> {
    const event = { type: 'user.tool_result' as const, tool_use_id: toolUseId, content, is_error: isError }
    for (let attempt = 0; ; attempt += 1) {
      // A lost claim's answers are the new holder's to give (docs/adr/0403).
      if (options.lost() || taken) return
      try {
        await client.beta.sessions.events.send(maSessionId, { events: [event] }, { maxRetries: 0 })
        answered.add(toolUseId)
        inFlight.delete(toolUseId)
        await journal.answered(maSessionId, toolUseId).catch(logFault)
        noteProgress()
        return
      } catch (error) {
        if (isFinalRefusal(error) || options.signal.aborted) {
          log.error({ err: error, maSessionId, toolUseId }, 'a tool result was refused')
          inFlight.delete(toolUseId)
          // The session still waits on this call and nothing here runs it: that is a stall.
          noteProgress()
          return
        }
        await sleep(SEND_RETRY_MS[Math.min(attempt, SEND_RETRY_MS.length - 1)]!, options.signal)
      }
    }
  }

  const answer = (result: ToolResultBlock) =>
    send(result.tool_use_id, toSessionContent(result), result.is_error === true)

  /** Runs the call unless the journal says it ran or runs elsewhere. */
  async function dispatch(event: SessionEvent) {
    const block = toToolUseBlock({ id: event.id, name: event.name ?? '', input: event.input ?? {} })
    const standing = await journal.claim(maSessionId, event.id, owner)
    if (standing === null) {
      inFlight.set(event.id, block.name)
      noteProgress()
      turns.add(block)
    } else if (standing.state === 'answered') answered.add(event.id)
    else if (standing.owner !== owner) {
      // Started on an instance that is gone: it may have had effects, so it is not run again.
      inFlight.set(event.id, block.name)
      await send(event.id, [{ type: 'text', text: lostExecutorMessage(block.name) }], true)
    }
  }

  async function onToolUse(event: SessionEvent) {
    if (answered.has(event.id) || inFlight.has(event.id)) return
    // The server resolves its own deny; a call the user denied is never run (both: no result from us).
    if (event.evaluated_permission === 'deny') return
    const verdict = verdicts.get(event.id)
    if (verdict === 'deny') return
    const gated = event.evaluated_permission === 'ask' && verdict === undefined
    // An ask the interrupt cut before its confirmation never ran and takes no result.
    if (cutBefore.has(event.id)) return gated ? undefined : answerCut(event)
    if (gated) held.set(event.id, event)
    else await dispatch(event)
  }

  /** A call an earlier interrupt cut: never run; told whether it may have had effects. */
  async function answerCut(event: SessionEvent) {
    const name = toToolUseBlock({ id: event.id, name: event.name ?? '', input: {} }).name
    const standing = await journal.claim(maSessionId, event.id, owner)
    if (standing?.state === 'answered') return void answered.add(event.id)
    const startedElsewhere = standing?.state === 'started' && standing.owner !== owner
    inFlight.set(event.id, name)
    await send(event.id, [{ type: 'text', text: startedElsewhere ? lostExecutorMessage(name) : REJECT_MESSAGE }], true)
  }

  async function onConfirmation(event: SessionEvent) {
    const id = event.tool_use_id ?? ''
    verdicts.set(id, event.result === 'allow' ? 'allow' : 'deny')
    const call = held.get(id)
    if (!call) return
    held.delete(id)
    if (event.result === 'allow') await dispatch(call)
    noteProgress()
  }

  /** Unfinished calls get the interrupt texts; held asks are dropped; nothing settled runs again. */
  async function onInterrupt() {
    for (const id of held.keys()) verdicts.set(id, 'deny')
    held.clear()
    // `cancel`, not the run's `interrupt` mode, which lets a call of a tool that blocks interrupts
    // (all built-in ones) run to its end: a user who interrupts a session wants it stopped (ADR 0405).
    turns.cancel('cancel')
    for (const block of turns.takeWaiting()) await send(block.id, [{ type: 'text', text: REJECT_MESSAGE }], true)
  }

  function onIdle(event: SessionEvent) {
    turns.endTurn()
    if (event.stop_reason?.type === 'requires_action') {
      waitedOn = event.stop_reason.event_ids ?? []
      noteProgress()
      return
    }
    waitedOn = []
    noteProgress()
    armIdle()
  }

  function armIdle() {
    clearTimeout(idleTimer)
    if (inFlight.size > 0 || held.size > 0) return
    idleTimer = setTimeout(() => {
      end = 'idle'
      stop.abort()
    }, options.idleMs)
  }

  /** Stalled: the session waits on calls of ours, and none of them runs or waits for a person. */
  function noteProgress() {
    const waiting = waitedOn.filter((id) => !answered.has(id) && !held.has(id))
    const stalled = waiting.length > 0 && waiting.every((id) => !inFlight.has(id))
    stall.update(stalled)
  }

  function onHistory(events: readonly SessionEvent[]) {
    const open = new Set<string>()
    for (const event of events) {
      if (event.type === 'agent.tool_use') open.add(event.id)
      if (event.type === 'user.interrupt') {
        for (const id of open) cutBefore.add(id)
        open.clear()
      }
      if (event.type === 'user.tool_result' && event.tool_use_id !== undefined) answered.add(event.tool_use_id)
      if (event.type === 'user.tool_confirmation' && event.tool_use_id !== undefined)
        verdicts.set(event.tool_use_id, event.result === 'allow' ? 'allow' : 'deny')
    }
  }

  async function handle(event: SessionEvent, before: boolean) {
    if (event.type !== 'session.status_idle') clearTimeout(idleTimer)
    switch (event.type) {
      case 'agent.tool_use':
        return onToolUse(event)
      case 'user.tool_confirmation':
        return onConfirmation(event)
      case 'user.tool_result':
        answered.add(event.tool_use_id ?? '')
        held.delete(event.tool_use_id ?? '')
        return noteProgress()
      case 'user.interrupt':
        // One from before this worker attached is over: the calls it cut are in `cutBefore`.
        return before ? undefined : onInterrupt()
      case 'session.status_idle':
        return onIdle(event)
      case 'session.status_terminated':
      case 'session.deleted':
        end = 'ended'
        stop.abort()
    }
  }

  return {
    /** Serves until the session ends, idles out, or the claim ends; then its run has finished. */
    async serve(): Promise<SessionEnd> {
      try {
        await readSessionEvents(client, maSessionId, handle, { signal, log, onHistory })
      } finally {
        clearTimeout(idleTimer)
        stall.stop()
        // Idle: nothing runs. A claim that ended stops the calls here with the service's texts; a
        // session that ended takes no more results, so what still runs for it is cancelled.
        if (end === 'idle') turns.endTurn()
        else turns.cancel(options.signal.aborted ? 'shutdown' : 'cancel')
        await turns.settled()
      }
      return end
    },
    status(now: number) {
      return {
        maSessionId,
        runId: turns.runId,
        inFlight: inFlight.size,
        heldForConfirmation: held.size,
        stalledMs: stall.stalledMs(now),
      }
    },
  }
}
