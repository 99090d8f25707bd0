// Pins the Host and Origin decision (docs/adr/0100-host-and-origin-checks.md): which Host names
// pass on a loopback and on a public bind, that only the service's own and allowlisted origins pass, and that the kept
// Host verdicts never change an answer, however many Host values arrive.
import { describe, expect, it } from 'vitest'
import { createRequestOriginPolicy, hostName, normalizeOrigin } from '../../src/auth/request-origin-policy.js'

const codeOf = (policy: ReturnType<typeof createRequestOriginPolicy>, host?: string, origin?: string) =>
  policy({ host, origin })?.code

describe('createRequestOriginPolicy', () => {
  const loopback = createRequestOriginPolicy({
    bindHost: '127.0.0.1',
    allowedHosts: ['tools.internal'],
    allowedOrigins: ['https://app.example'],
  })

  it('on a loopback bind accepts loopback names and listed ones only', () => {
    for (const host of ['localhost', 'LOCALHOST:8080', '127.0.0.1:8080', '127.5.6.7', '[::1]:8080', 'tools.internal:1'])
      expect(codeOf(loopback, host), host).toBeUndefined()
    for (const host of ['evil.example', 'localhost.evil.example', '127.0.0.1.nip.io:8080', '10.0.0.1', '[::2]:80'])
      expect(codeOf(loopback, host), host).toBe('host_forbidden')
    expect(codeOf(loopback, undefined)).toBeUndefined()
  })

  it('answers the same for a Host seen before, and past the bound on kept verdicts', () => {
    const policy = createRequestOriginPolicy({ bindHost: '127.0.0.1', allowedHosts: [], allowedOrigins: [] })
    for (let round = 0; round < 2; round++) {
      for (let port = 0; port < 200; port++) {
        expect(codeOf(policy, `localhost:${port}`)).toBeUndefined()
        expect(codeOf(policy, `evil${port}.example:${port}`)).toBe('host_forbidden')
      }
    }
  })

  it('on a public bind checks Host only when names are listed', () => {
    const open = createRequestOriginPolicy({ bindHost: '0.0.0.0', allowedHosts: [], allowedOrigins: [] })
    expect(codeOf(open, 'toolexec.example.com')).toBeUndefined()
    const listed = createRequestOriginPolicy({ bindHost: '0.0.0.0', allowedHosts: ['api.example'], allowedOrigins: [] })
    expect(codeOf(listed, 'api.example:443')).toBeUndefined()
    expect(codeOf(listed, 'localhost:8080')).toBeUndefined()
    expect(codeOf(listed, 'other.example')).toBe('host_forbidden')
  })

  it('refuses every Origin but the allowlisted ones, whatever the Host', () => {
    expect(codeOf(loopback, 'localhost', 'https://app.example')).toBeUndefined()
    expect(codeOf(loopback, 'localhost', 'https://APP.example:443')).toBeUndefined()
    for (const origin of ['http://app.example', 'https://app.example:8443', 'null', 'file://', 'http://localhost:8080'])
      expect(codeOf(loopback, 'localhost', origin), origin).toBe('origin_forbidden')
    const none = createRequestOriginPolicy({ bindHost: '0.0.0.0', allowedHosts: [], allowedOrigins: [] })
    expect(codeOf(none, 'api.example', 'https://other.example')).toBe('origin_forbidden')
  })

  it("accepts the service's own origin (its pages), never a rebinding page's", () => {
    expect(codeOf(loopback, '127.0.0.1:8080', 'http://127.0.0.1:8080')).toBeUndefined()
    expect(codeOf(loopback, 'LOCALHOST:8080', 'http://localhost:8080')).toBeUndefined()
    expect(codeOf(loopback, 'localhost:443', 'https://localhost')).toBeUndefined()
    // Another port on the same machine is another origin.
    expect(codeOf(loopback, '127.0.0.1:8080', 'http://127.0.0.1:3000')).toBe('origin_forbidden')
    expect(codeOf(loopback, undefined, 'http://127.0.0.1:8080')).toBe('origin_forbidden')
    // DNS rebinding: the page's own name arrives as Host and origin alike; the Host check refuses it.
    expect(codeOf(loopback, 'evil.example:8080', 'http://evil.example:8080')).toBe('host_forbidden')
    const none = createRequestOriginPolicy({ bindHost: '0.0.0.0', allowedHosts: [], allowedOrigins: [] })
    expect(codeOf(none, 'api.example', 'https://api.example')).toBeUndefined()
  })
})

describe('normalizeOrigin and hostName', () => {
  it('keeps scheme, host and a non-default port only', () => {
    expect(normalizeOrigin('HTTPS://App.Example:443/')).toBe('https://app.example')
    expect(normalizeOrigin('http://localhost:3000')).toBe('http://localhost:3000')
    for (const text of ['null', 'app.example', 'https://app.example/x', 'https://u@app.example', 'ftp://a.example'])
      expect(normalizeOrigin(text), text).toBeUndefined()
  })

  it('drops the port of a Host header', () => {
    expect(hostName('Example.COM:80')).toBe('example.com')
    expect(hostName('[::1]:8080')).toBe('[::1]')
    expect(hostName('localhost')).toBe('localhost')
  })
})
