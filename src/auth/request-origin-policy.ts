import { ApiError } from '../errors/api-error.js'
import { isLoopbackHost } from './is-loopback-host.js'

export type RequestOriginOptions = {
  /** The address the service binds (HOST): a loopback one turns the Host check on. */
  bindHost: string
  /** TOOLEXEC_ALLOWED_HOSTS: host names (no port) accepted besides the loopback names. */
  allowedHosts: readonly string[]
  /** TOOLEXEC_ALLOWED_ORIGINS: serialised origins (`scheme://host[:port]`) a browser may send. */
  allowedOrigins: readonly string[]
}

export type OriginHeaders = { host: string | undefined; origin: string | undefined }

/**
 * `scheme://host[:port]` in the form browsers send it (lower case, default port left out), or
 * undefined for anything that is not an http(s) origin: paths, `null`, other schemes.
 */
export function normalizeOrigin(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined
  const url = new URL(text)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  // Anything beyond the origin (user, path, query, fragment) would never match what browsers send.
  if (`${url.origin}/` !== url.href) return undefined
  return url.origin
}

/** The host name of a Host header (`name`, `name:port`, `[v6]:port`), lower case, port left out. */
export function hostName(header: string): string {
  const trimmed = header.trim().toLowerCase()
  if (trimmed.startsWith('[')) return trimmed.slice(0, trimmed.indexOf(']') + 1)
  const colon = trimmed.indexOf(':')
  return colon === -1 ? trimmed : trimmed.slice(0, colon)
}

/**
 * A page the service itself served (the API docs' "Try it out", the console) sends its own origin:
 * the scheme with the request's own Host. A rebinding page sends its own Host too, which the Host
 * check refuses first; elsewhere the page holds no key, as no credential is ambient
 * (docs/adr/0281-same-origin-requests-pass-the-origin-guard.md).
 */
function isSameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false
  return origin === normalizeOrigin(`http://${host}`) || origin === normalizeOrigin(`https://${host}`)
}

/**
 * The browser defence (docs/adr/0100-host-and-origin-checks.md), decided from two headers: a web
 * page can make the operator's browser reach a loopback service, by DNS rebinding (a foreign Host)
 * or by a cross-site request or WebSocket (a foreign Origin). Returns the refusal, or undefined.
 *
 * - Host is checked when the service binds a loopback address or the operator lists names; a
 *   request without Host comes from no browser and passes.
 * - Origin is checked always: a request that carries one must carry the service's own origin or an
 *   allowlisted one. Backends send none, so the allowlist is empty by default.
 */
export function createRequestOriginPolicy(options: RequestOriginOptions) {
  const allowedHosts = new Set(options.allowedHosts.map((name) => name.toLowerCase()))
  const allowedOrigins = new Set(options.allowedOrigins)
  const checkHost = isLoopbackHost(options.bindHost) || allowedHosts.size > 0

  // Every request of a client carries the same Host: its verdict is kept, for a bounded number of
  // distinct values (they come from outside), so the check costs a lookup per request.
  const hostVerdicts = new Map<string, boolean>()
  const hostAllowed = (header: string) => {
    let allowed = hostVerdicts.get(header)
    if (allowed === undefined) {
      const name = hostName(header)
      allowed = isLoopbackHost(name) || allowedHosts.has(name)
      if (hostVerdicts.size >= 64) hostVerdicts.clear()
      hostVerdicts.set(header, allowed)
    }
    return allowed
  }

  return function refusal(headers: OriginHeaders): ApiError | undefined {
    if (checkHost && headers.host !== undefined && !hostAllowed(headers.host)) {
      return new ApiError(
        'host_forbidden',
        `Host ${JSON.stringify(hostName(headers.host))} is not a loopback name nor listed in TOOLEXEC_ALLOWED_HOSTS`,
      )
    }
    if (headers.origin !== undefined) {
      const origin = normalizeOrigin(headers.origin)
      if (origin === undefined || !(allowedOrigins.has(origin) || isSameOrigin(origin, headers.host))) {
        return new ApiError(
          'origin_forbidden',
          `Origin ${JSON.stringify(headers.origin)} is not listed in TOOLEXEC_ALLOWED_ORIGINS`,
        )
      }
    }
    return undefined
  }
}
