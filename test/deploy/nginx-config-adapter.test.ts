// Pins the deployed-chain test's nginx.conf adapter: it changes only the upstream servers, the
// listen port and the pid/log/temp paths of deploy/nginx.conf, keeps every other directive
// (limits and timeouts another change may add), and the result is a configuration nginx accepts.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { adaptNginxConfig, nginxBinary } from '../helpers/nginx-server.js'

const shipped = readFileSync(new URL('../../deploy/nginx.conf', import.meta.url), 'utf8')
// Directives of the kind a later change adds, in each block.
const extended = shipped
  .replace(/\bhttp\s*\{/, '$&\n  server_tokens off;')
  .replace(/(upstream\s+toolexec\s*\{)/, '$1\n    keepalive 16;')
  .replace(/(listen\s+[^;]+;)/, '$1\n    send_timeout 20s;')

describe('the nginx.conf adapter', () => {
  it('replaces upstreams, listen and paths, and keeps every other directive', () => {
    const adapted = adaptNginxConfig(extended, {
      upstreams: ['127.0.0.1:1111', '127.0.0.1:2222'],
      port: 3333,
      prefix: '/p',
    })
    expect(adapted).toMatch(
      /upstream toolexec \{\s*server 127\.0\.0\.1:1111;\s*server 127\.0\.0\.1:2222;\s*keepalive 16;/,
    )
    expect(adapted).not.toContain('toolexec-1')
    expect(adapted.match(/listen [^;]+;/g)).toEqual(['listen 127.0.0.1:3333;'])
    for (const kept of [
      'server_tokens off;',
      'send_timeout 20s;',
      'limit_conn_zone',
      'limit_conn toolexec_per_client 256;',
      'client_header_timeout 10s;',
      'client_body_timeout 30s;',
      'X-Request-Id',
      '/metrics',
    ]) {
      expect(adapted).toContain(kept)
    }
    expect(adapted).toContain('pid /p/nginx.pid;')
  })

  it.skipIf(nginxBinary === undefined)('produces a configuration nginx accepts', () => {
    const prefix = mkdtempSync(path.join(tmpdir(), 'toolexec-nginx-t-'))
    onTestFinished(() => rmSync(prefix, { recursive: true, force: true }))
    const file = path.join(prefix, 'nginx.conf')
    writeFileSync(file, adaptNginxConfig(extended, { upstreams: ['127.0.0.1:1111'], port: 3333, prefix }))
    expect(() => execFileSync(nginxBinary!, ['-t', '-q', '-p', prefix, '-c', file], { stdio: 'pipe' })).not.toThrow()
  })
})
