/**
 * A person's browser, as far as an OAuth authorization needs one: follows redirects by hand,
 * keeping the cookies the authorization server sets, until a page answers without one, or the
 * next hop would leave for `stopAt` (returned unvisited, for tests that hand the callback over
 * themselves). The test authorization server logs in and consents on its own.
 */
export async function openInBrowser(url: string, stopAt?: string): Promise<{ url: URL; response?: Response }> {
  const jar = new Map<string, string>()
  let next = new URL(url)
  for (let hop = 0; hop < 20; hop++) {
    if (stopAt !== undefined && next.href.startsWith(stopAt)) return { url: next }
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} })
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? ''
      const at = pair.indexOf('=')
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    const location = response.headers.get('location')
    if (location === null) return { url: next, response }
    await response.body?.cancel()
    next = new URL(location, next)
  }
  throw new Error(`more than 20 redirects from ${url}`)
}
