import type { HookVerdict } from './hook-output.js'

/** How one hook ended: a verdict (possibly empty), or a non-blocking error to log. */
export type HookRun = { ok: true; verdict: HookVerdict } | { ok: false; error: string }

/** What every hook transport gets: the event JSON and the limits it runs under. */
export type HookRunOptions = {
  event: string
  payload: string
  cwd: string
  timeoutMs: number
  /** The call's signal: a cancelled run kills its hooks too. */
  signal: AbortSignal
  env: NodeJS.ProcessEnv
  /** Looks up `${secret:NAME}` in an HTTP hook's headers; absent: references are not resolved. */
  resolveSecret?: (name: string) => Promise<string>
}
