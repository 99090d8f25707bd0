import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from './free-port.js'
import { waitUntilHealthy } from './wait-until-healthy.js'

/** The nginx binary: on PATH, or where Debian puts it (/usr/sbin is not on every user's PATH). */
export const nginxBinary = ['nginx', '/usr/sbin/nginx'].find((candidate) => {
  try {
    execFileSync(candidate, ['-v'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})

/** Why the nginx tests cannot run here, or undefined when `nginx` is installed. */
export const nginxMissingReason: string | undefined =
  nginxBinary === undefined ? 'nginx is not installed (Debian package nginx; .ci/run installs it)' : undefined

/**
 * The repository's nginx.conf adapted in ports and paths only: the servers of the `toolexec`
 * upstream become `upstreams`, every `listen` the loopback `port`, and the pid, logs and temp
 * files go under `prefix`. Every other directive is kept as written.
 */
export function adaptNginxConfig(config: string, options: { upstreams: string[]; port: number; prefix: string }) {
  const { upstreams, port, prefix } = options
  const upstream = /(upstream\s+toolexec\s*\{)([^}]*)(\})/
  if (!upstream.test(config)) throw new Error('nginx.conf has no `upstream toolexec { … }` block')
  const adapted = config
    .replace(upstream, (_all, open: string, body: string, close: string) => {
      const kept = body
        .split('\n')
        .filter((line) => !/^\s*server\s/.test(line))
        .join('\n')
      return `${open}${upstreams.map((address) => `\n    server ${address};`).join('')}${kept}${close}`
    })
    .replace(/^(\s*)listen\s+[^;]+;/gm, `$1listen 127.0.0.1:${port};`)
    .replace(/^\s*(pid|error_log|access_log)\s[^;]*;\s*$/gm, '')
  const file = (name: string) => path.join(prefix, name)
  const paths = [
    `access_log ${file('access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${file(kind)};`),
  ]
  return `pid ${file('nginx.pid')};\nerror_log ${file('error.log')};\n${adapted.replace(/\bhttp\s*\{/, (open) => `${open}\n  ${paths.join('\n  ')}`)}`
}

export type NginxServer = { baseUrl: string; wsUrl: string; stop(): Promise<void> }

/** A real nginx in the foreground on a free loopback port, everything it writes in a temp dir. */
export async function startNginx(config: string, upstreams: string[]): Promise<NginxServer> {
  const prefix = mkdtempSync(path.join(tmpdir(), 'toolexec-nginx-'))
  // Workers of a root master run as nobody: they must reach the temp paths under the prefix.
  chmodSync(prefix, 0o755)
  const port = await freePort()
  const file = path.join(prefix, 'nginx.conf')
  writeFileSync(file, adaptNginxConfig(config, { upstreams, port, prefix }))
  const child: ChildProcess = spawn(nginxBinary ?? 'nginx', ['-p', prefix, '-c', file, '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const baseUrl = `http://127.0.0.1:${port}`
  // Through nginx to an instance: the whole chain answers.
  await waitUntilHealthy(`${baseUrl}/healthz`, {
    name: 'nginx',
    child,
    output: () => output,
    kill: () => child.kill('SIGKILL'),
    timeoutMs: 15_000,
  })
  return {
    baseUrl,
    wsUrl: `ws://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT')
      await exited
      rmSync(prefix, { recursive: true, force: true })
    },
  }
}
