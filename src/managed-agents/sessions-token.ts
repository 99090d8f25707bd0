/**
 * The per-item credential inside a work item's `secret`: base64url JSON carrying `sessions_token`
 * (BetaWorkSecret). Null when absent or unreadable: the environment key is used instead. The
 * payload and the token are secrets: never logged.
 */
export function sessionsTokenOf(secret: string | null | undefined): string | null {
  if (!secret) return null
  try {
    const parsed: unknown = JSON.parse(Buffer.from(secret, 'base64url').toString('utf8'))
    const token = (parsed as { sessions_token?: unknown } | null)?.sessions_token
    return typeof token === 'string' && token !== '' ? token : null
  } catch {
    return null
  }
}
