import { resolveSecretReferences } from '../secrets/secret-references.js'
import { traceHeaders } from '../telemetry/trace-headers.js'
import { type HookVerdict, parseHookOutput, verdictFromOutput } from './hook-output.js'
import type { HookRun, HookRunOptions } from './hook-run.js'
import type { HttpHook } from './hooks-config-schema.js'

/** `$NAME` and `${NAME}` in header values, replaced only for names the operator listed. */
function interpolateHeaders(hook: HttpHook, env: NodeJS.ProcessEnv): Record<string, string> {
  const allowed = new Set(hook.allowedEnvVars ?? [])
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(hook.headers ?? {})) {
    headers[name] = value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
      (whole, braced, bare) => {
        const variable = (braced ?? bare) as string
        return allowed.has(variable) ? (env[variable] ?? '') : whole
      },
    )
  }
  return headers
}

/**
 * `${secret:NAME}` in header values replaced from the secret store at each send, so a secret
 * written again is used from the next call on (docs/adr/0332-secret-references.md).
 */
async function resolveHeaderSecrets(
  headers: Record<string, string>,
  resolve: ((name: string) => Promise<string>) | undefined,
): Promise<Record<string, string>> {
  if (resolve === undefined) return headers
  const entries = await Promise.all(
    Object.entries(headers).map(
      async ([name, value]) => [name, await resolveSecretReferences(value, resolve)] as const,
    ),
  )
  return Object.fromEntries(entries)
}

/**
 * POSTs the event JSON to an HTTP hook and reads its answer like a command hook's stdout:
 * a 2xx body with JSON decides, an empty body is no opinion. Other statuses, network errors and
 * the timeout are non-blocking errors. Never rejects.
 */
export async function runHttpHook(hook: HttpHook, options: HookRunOptions): Promise<HookRun> {
  const timeout = AbortSignal.timeout(options.timeoutMs)
  try {
    // An unknown secret fails this run of the hook with its name, like any other hook failure.
    const own = await resolveHeaderSecrets(interpolateHeaders(hook, options.env), options.resolveSecret)
    const response = await fetch(hook.url, {
      method: 'POST',
      // The call's W3C trace headers first, so an operator's own header of that name wins.
      headers: { ...traceHeaders(), ...own, 'content-type': 'application/json' },
      body: options.payload,
      signal: AbortSignal.any([timeout, options.signal]),
      redirect: 'error',
    })
    const body = await response.text()
    if (!response.ok) return { ok: false, error: `answered HTTP ${response.status}` }
    const output = parseHookOutput(body)
    const verdict: HookVerdict = output ? verdictFromOutput(output, options.event) : {}
    return { ok: true, verdict }
  } catch (error) {
    if (timeout.aborted) return { ok: false, error: `timed out after ${options.timeoutMs} ms` }
    if (options.signal.aborted) return { ok: false, error: 'aborted because the call was cancelled' }
    return { ok: false, error: (error as Error).message }
  }
}
