import createClient from 'openapi-fetch'
import type { components, paths } from '../../test/generated/openapi.js'

export type RunSummary = components['schemas']['RunSummary']
export type RunView = components['schemas']['Run']
export type RunEvent = components['schemas']['RunEvent']
export type PermissionRequest = components['schemas']['PermissionRequest']
export type ToolResultBlock = components['schemas']['ToolResultBlock']
export type AuditRecord = components['schemas']['AuditRecord']
type Problem = components['schemas']['Problem']

/**
 * The API key, kept for this tab only: in memory and in sessionStorage (gone when the tab
 * closes), never in a URL or in storage that outlives the tab (docs/adr/0248-console-security.md).
 */
const KEY_ITEM = 'toolexec.api-key'
let apiKey: string | undefined = sessionStorage.getItem(KEY_ITEM) ?? undefined
const keyListeners = new Set<() => void>()
let keyRefused = false

export const keyState = {
  hasKey: () => apiKey !== undefined,
  /** The last request was refused for want of a (valid) key: the page asks for one. */
  refused: () => keyRefused,
  set(key: string) {
    apiKey = key
    keyRefused = false
    sessionStorage.setItem(KEY_ITEM, key)
    for (const listener of keyListeners) listener()
  },
  forget() {
    apiKey = undefined
    sessionStorage.removeItem(KEY_ITEM)
    for (const listener of keyListeners) listener()
  },
  subscribe(listener: () => void) {
    keyListeners.add(listener)
    return () => keyListeners.delete(listener)
  },
}

export const authorization = (): Record<string, string> =>
  apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }

/** A refusal the person can act on: the problem's own detail, which says what to fix. */
class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail)
  }
}

export const api = createClient<paths>({ baseUrl: location.origin })
api.use({
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authorization())) request.headers.set(name, value)
    return request
  },
  onResponse({ response }) {
    if (response.status === 401) {
      keyRefused = true
      for (const listener of keyListeners) listener()
    }
    return response
  },
})

/** The data of an answer, or an ApiProblem with the service's own words. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined && result.response.ok) return result.data
  const problem = result.error as Partial<Problem> | undefined
  throw new ApiProblem(
    result.response.status,
    problem?.code ?? 'http_error',
    problem?.detail ?? `The service answered ${result.response.status}`,
  )
}

export const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error))
