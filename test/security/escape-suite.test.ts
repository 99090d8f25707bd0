// Pins that no attempt to leave the tenant's tree succeeds, over a listening server with two
// tenants, with the sandbox on (bubblewrap) and off: Read, Write, Edit, Glob, Grep, Bash, blob
// ids, session cwd and additional_directories; `..`, absolute paths, symlinks planted and
// followed, directories swapped for links between calls, /proc/self/root, NUL bytes, long paths,
// the service's own port. docs/security.md § Paths and the filesystem.
import { mkdir, rm, stat, symlink } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { warmSandboxes } from '../../src/tools/bash/warm-sandboxes.js'
import { type EscapeServer, type Outcome, startEscapeServer, type ToolUse } from './escape-harness.js'

type Attempt = {
  name: string
  /** Runs the attempt; returns what the caller got back. */
  run: (s: EscapeServer) => Promise<Outcome>
  /** Files outside the tenant's tree the attempt would create or change. */
  writes?: (s: EscapeServer) => string[]
}

const long = `${'a'.repeat(300)}/x.txt`
const veryLong = `${'abcdefgh/'.repeat(600)}x.txt`

/** One call in a fresh session of acme (cwd = its root unless given); Bash in a warm sandbox where there are. */
const tool =
  (name: string, input: (s: EscapeServer) => Record<string, unknown>, session = {}): Attempt['run'] =>
  async (s) => {
    const given = input(s)
    const id = await s.sessionId(session)
    if (name === 'Bash') await s.warm(id)
    return { ...(await s.call(id, { name, input: given })), named: given }
  }

/** A session body, answered as an outcome: a 201 for a path outside is the escape. */
const sessionWith =
  (body: (s: EscapeServer) => Record<string, unknown>): Attempt['run'] =>
  async (s) => {
    const given = body(s)
    const created = await s.session(given)
    return { status: created.status === 201 ? 599 : created.status, text: JSON.stringify(created.body), named: given }
  }

/**
 * Session A works in `work`; then (another session of the same tenant, or the test standing in
 * for its Bash) `work` becomes a link to `target`, and A makes `use`.
 */
const swapped =
  (target: (s: EscapeServer) => string, use: (s: EscapeServer, directory: string) => ToolUse, field = 'cwd') =>
  async (s: EscapeServer): Promise<Outcome> => {
    const name = `work-${Math.random().toString(36).slice(2)}`
    const directory = path.join(s.acme, name)
    await mkdir(directory)
    const id = await s.sessionId(field === 'cwd' ? { cwd: name } : { additional_directories: [name] })
    // Its sandboxes made ahead bound `work` as it was: the swap must still be refused.
    if (use(s, directory).name === 'Bash') await s.warm(id)
    await rm(directory, { recursive: true })
    await symlink(target(s), directory)
    return s.call(id, use(s, directory))
  }

const toGlobex = (s: EscapeServer) => s.globex
const toRoot = () => '/'

const attempts: Attempt[] = [
  // Read
  { name: 'Read ../globex', run: tool('Read', () => ({ file_path: '../globex/secret.txt' })) },
  { name: 'Read globex absolute', run: tool('Read', (s) => ({ file_path: path.join(s.globex, 'secret.txt') })) },
  { name: 'Read /etc/passwd', run: tool('Read', () => ({ file_path: '/etc/passwd' })) },
  { name: 'Read host secret absolute', run: tool('Read', (s) => ({ file_path: s.hostSecret })) },
  { name: 'Read ../../host secret', run: tool('Read', () => ({ file_path: '../../host-secret.txt' })) },
  { name: 'Read /proc/self/root/etc/passwd', run: tool('Read', () => ({ file_path: '/proc/self/root/etc/passwd' })) },
  {
    name: 'Read /proc/self/root + globex',
    run: tool('Read', (s) => ({ file_path: `/proc/self/root${s.globex}/secret.txt` })),
  },
  { name: 'Read /proc/self/environ', run: tool('Read', () => ({ file_path: '/proc/self/environ' })) },
  { name: 'Read NUL byte', run: tool('Read', () => ({ file_path: 'own.txt\u0000/../../globex/secret.txt' })) },
  { name: 'Read 300-byte name', run: tool('Read', () => ({ file_path: long })) },
  { name: 'Read 5,400-byte path', run: tool('Read', () => ({ file_path: veryLong })) },
  { name: 'Read ~', run: tool('Read', () => ({ file_path: '~/.bashrc' })) },
  { name: 'Read planted dir link → globex', run: tool('Read', () => ({ file_path: 'link-globex/secret.txt' })) },
  { name: 'Read planted dir link → /', run: tool('Read', () => ({ file_path: 'link-root/etc/passwd' })) },
  { name: 'Read planted file link → host secret', run: tool('Read', () => ({ file_path: 'link-host-secret' })) },
  { name: 'Read link chain → globex', run: tool('Read', () => ({ file_path: 'link-chain/secret.txt' })) },
  // Write
  {
    name: 'Write ../globex',
    run: tool('Write', () => ({ file_path: '../globex/pwned.txt', content: 'x' })),
    writes: (s) => [path.join(s.globex, 'pwned.txt')],
  },
  {
    name: 'Write host absolute',
    run: tool('Write', (s) => ({ file_path: path.join(s.root, 'pwned.txt'), content: 'x' })),
    writes: (s) => [path.join(s.root, 'pwned.txt')],
  },
  {
    name: 'Write through planted dir link',
    run: tool('Write', () => ({ file_path: 'link-globex/pwned-link.txt', content: 'x' })),
    writes: (s) => [path.join(s.globex, 'pwned-link.txt')],
  },
  {
    name: 'Write through planted dangling link',
    run: tool('Write', () => ({ file_path: 'link-dangling', content: 'x' })),
    writes: (s) => [path.join(s.root, 'pwned-dangling.txt')],
  },
  {
    name: 'Write new dirs under a link',
    run: tool('Write', () => ({ file_path: 'link-globex/new/deep/f.txt', content: 'x' })),
    writes: (s) => [path.join(s.globex, 'new')],
  },
  {
    name: 'Write /proc/self/root path',
    run: tool('Write', (s) => ({ file_path: `/proc/self/root${s.globex}/pwned-proc.txt`, content: 'x' })),
    writes: (s) => [path.join(s.globex, 'pwned-proc.txt')],
  },
  {
    name: 'Write own blob directory (read-only)',
    run: tool('Write', (s) => ({ file_path: path.join(s.app.blobStore.directory('acme'), 'w.txt'), content: 'x' })),
    writes: (s) => [path.join(s.app.blobStore.directory('acme'), 'w.txt')],
  },
  { name: 'Write NUL byte', run: tool('Write', () => ({ file_path: 'a\u0000b', content: 'x' })) },
  { name: 'Write 300-byte name', run: tool('Write', () => ({ file_path: long, content: 'x' })) },
  { name: 'Write 5,400-byte path', run: tool('Write', () => ({ file_path: veryLong, content: 'x' })) },
  // Edit
  {
    name: 'Edit create ../globex',
    run: tool('Edit', () => ({ file_path: '../globex/edit.txt', old_string: '', new_string: 'x' })),
    writes: (s) => [path.join(s.globex, 'edit.txt')],
  },
  {
    name: 'Edit through file link → globex secret',
    run: tool('Edit', () => ({ file_path: 'link-globex/secret.txt', old_string: 'GLOBEX', new_string: 'PWNED' })),
  },
  {
    name: 'Edit create through planted dir link',
    run: tool('Edit', () => ({ file_path: 'link-globex/edit-link.txt', old_string: '', new_string: 'x' })),
    writes: (s) => [path.join(s.globex, 'edit-link.txt')],
  },
  {
    name: 'Edit /etc/passwd',
    run: tool('Edit', () => ({ file_path: '/etc/passwd', old_string: 'root', new_string: 'toor' })),
  },
  // Glob
  { name: 'Glob ../globex/*', run: tool('Glob', () => ({ pattern: '../globex/*' })) },
  { name: 'Glob path ../globex', run: tool('Glob', () => ({ pattern: '*', path: '../globex' })) },
  { name: 'Glob path /etc', run: tool('Glob', () => ({ pattern: 'passwd', path: '/etc' })) },
  { name: 'Glob pattern through dir link', run: tool('Glob', () => ({ pattern: 'link-globex/*' })) },
  { name: 'Glob pattern through link chain', run: tool('Glob', () => ({ pattern: 'link-chain/**' })) },
  { name: 'Glob path dir link', run: tool('Glob', () => ({ pattern: '*', path: 'link-globex' })) },
  { name: 'Glob absolute pattern', run: tool('Glob', (s) => ({ pattern: `${s.globex}/*` })) },
  // Grep
  { name: 'Grep path ../globex', run: tool('Grep', () => ({ pattern: 'SECRET', path: '../globex' })) },
  {
    name: 'Grep path /etc',
    run: tool('Grep', () => ({ pattern: 'root', path: '/etc/passwd', output_mode: 'content' })),
  },
  {
    name: 'Grep path dir link',
    run: tool('Grep', () => ({ pattern: 'SECRET', path: 'link-globex', output_mode: 'content' })),
  },
  {
    name: 'Grep path file link',
    run: tool('Grep', () => ({ pattern: 'SECRET', path: 'link-host-secret', output_mode: 'content' })),
  },
  { name: 'Grep whole cwd with links', run: tool('Grep', () => ({ pattern: 'SECRET', output_mode: 'content' })) },
  // Bash (with two tenants it runs only in the sandbox; off, every attempt is refused)
  { name: 'Bash cat ../globex', run: tool('Bash', () => ({ command: 'cat ../globex/secret.txt' })) },
  { name: 'Bash cat globex absolute', run: tool('Bash', (s) => ({ command: `cat ${s.globex}/secret.txt` })) },
  { name: 'Bash cat host secret', run: tool('Bash', (s) => ({ command: `cat ${s.hostSecret}` })) },
  { name: 'Bash cat through dir link', run: tool('Bash', () => ({ command: 'cat link-globex/secret.txt' })) },
  {
    name: 'Bash /proc/self/root',
    run: tool('Bash', (s) => ({ command: `cat /proc/self/root${s.globex}/secret.txt` })),
  },
  { name: 'Bash /proc/1/root', run: tool('Bash', (s) => ({ command: `cat /proc/1/root${s.globex}/secret.txt` })) },
  {
    name: 'Bash ls globex blobs',
    run: tool('Bash', (s) => ({ command: `ls ${s.app.blobStore.directory('globex')}` })),
  },
  { name: 'Bash env keys', run: tool('Bash', () => ({ command: 'env; cat /proc/1/environ' })) },
  {
    name: "Bash the service's own port",
    run: async (s) => {
      const port = new URL(s.baseUrl).port
      const outcome = await tool('Bash', () => ({
        command: `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3 | head -1 | sed s/^/REACHED-/`,
      }))(s)
      return outcome.text.includes('REACHED-') ? { ...outcome, text: `${outcome.text} acme-key` } : outcome
    },
  },
  {
    name: 'Bash plants a link, Read follows it',
    run: async (s) => {
      const id = await s.sessionId()
      await s.call(id, { name: 'Bash', input: { command: `ln -sfn ${s.globex} planted-by-bash` } })
      return s.call(id, { name: 'Read', input: { file_path: 'planted-by-bash/secret.txt' } })
    },
  },
  {
    name: 'Bash swaps its own cwd for a link, Bash follows',
    run: async (s) => {
      await mkdir(path.join(s.acme, 'bash-swap'), { recursive: true })
      const a = await s.sessionId({ cwd: 'bash-swap' })
      await s.warm(a)
      const b = await s.sessionId()
      await s.call(b, { name: 'Bash', input: { command: `rm -rf bash-swap && ln -s ${s.globex} bash-swap` } })
      return s.call(a, { name: 'Bash', input: { command: 'cat secret.txt' } })
    },
  },
  // Blob ids
  { name: 'blob id ../', run: async (s) => blob(s, '..%2Fglobex%2Fr.txt') },
  { name: 'blob id absolute', run: async (s) => blob(s, encodeURIComponent(path.join(s.globex, 'secret.txt'))) },
  { name: "blob id of globex's blob", run: async (s) => blob(s, globexBlobId) },
  { name: 'blob id NUL', run: async (s) => blob(s, `${globexBlobId}%00`) },
  {
    name: "Read globex's blob by its path",
    run: tool('Read', (s) => ({ file_path: path.join(s.app.blobStore.directory('globex'), globexBlobId) })),
  },
  // Session cwd and additional_directories
  { name: 'cwd ../globex', run: sessionWith(() => ({ cwd: '../globex' })) },
  { name: 'cwd /etc', run: sessionWith(() => ({ cwd: '/etc' })) },
  { name: 'cwd globex absolute', run: sessionWith((s) => ({ cwd: s.globex })) },
  { name: 'cwd planted link', run: sessionWith(() => ({ cwd: 'link-globex' })) },
  {
    name: 'cwd new directory under a link',
    run: sessionWith(() => ({ cwd: 'link-globex/created-by-session' })),
    writes: (s) => [path.join(s.globex, 'created-by-session')],
  },
  { name: 'cwd /proc/self/root', run: sessionWith((s) => ({ cwd: `/proc/self/root${s.globex}` })) },
  { name: 'cwd NUL byte', run: sessionWith(() => ({ cwd: 'a\u0000b' })) },
  { name: 'cwd 300-byte name', run: sessionWith(() => ({ cwd: 'a'.repeat(300) })) },
  { name: 'cwd 5,400-byte path', run: sessionWith(() => ({ cwd: veryLong })) },
  { name: 'additional ../globex', run: sessionWith(() => ({ additional_directories: ['../globex'] })) },
  { name: 'additional /', run: sessionWith(() => ({ additional_directories: ['/'] })) },
  { name: 'additional planted link', run: sessionWith(() => ({ additional_directories: ['link-root'] })) },
  { name: 'additional 300-byte name', run: sessionWith(() => ({ additional_directories: ['b'.repeat(300)] })) },
  // Working directories swapped for links between calls
  { name: 'cwd → globex, Read', run: swapped(toGlobex, () => ({ name: 'Read', input: { file_path: 'secret.txt' } })) },
  {
    name: 'cwd → globex, Write',
    run: swapped(toGlobex, () => ({ name: 'Write', input: { file_path: 'swap-pwned.txt', content: 'x' } })),
    writes: (s) => [path.join(s.globex, 'swap-pwned.txt')],
  },
  { name: 'cwd → globex, Glob', run: swapped(toGlobex, () => ({ name: 'Glob', input: { pattern: '*' } })) },
  {
    name: 'cwd → globex, Grep',
    run: swapped(toGlobex, () => ({ name: 'Grep', input: { pattern: 'SECRET', output_mode: 'content' } })),
  },
  {
    name: 'cwd → globex, Edit',
    run: swapped(toGlobex, () => ({ name: 'Edit', input: { file_path: 'e.txt', old_string: '', new_string: 'x' } })),
    writes: (s) => [path.join(s.globex, 'e.txt')],
  },
  {
    name: 'cwd → globex, Bash',
    run: swapped(toGlobex, () => ({ name: 'Bash', input: { command: 'cat secret.txt' } })),
  },
  { name: 'cwd → /, Read', run: swapped(toRoot, () => ({ name: 'Read', input: { file_path: 'etc/passwd' } })) },
  { name: 'cwd → /, Bash', run: swapped(toRoot, () => ({ name: 'Bash', input: { command: 'cat etc/passwd' } })) },
  {
    name: 'cwd → host secret dir, Read',
    run: swapped(
      (s) => s.root,
      () => ({ name: 'Read', input: { file_path: 'host-secret.txt' } }),
    ),
  },
  {
    name: 'additional → globex, Read',
    run: swapped(
      toGlobex,
      (_s, directory) => ({ name: 'Read', input: { file_path: path.join(directory, 'secret.txt') } }),
      'additional',
    ),
  },
  {
    name: 'additional → globex, Bash',
    run: swapped(
      toGlobex,
      (_s, directory) => ({ name: 'Bash', input: { command: `cat ${directory}/secret.txt` } }),
      'additional',
    ),
  },
]

async function blob(s: EscapeServer, id: string): Promise<Outcome> {
  const response = await s.request('acme-key', `/v1/blobs/${id}`)
  return {
    status: response.status === 200 ? 599 : response.status,
    text: JSON.stringify(response.body),
    named: decodeURIComponent(id),
  }
}

/** The links a command of acme could plant in its own workspace (planted directly: Bash is off without a sandbox). */
async function plantLinks(s: EscapeServer) {
  await symlink(s.globex, path.join(s.acme, 'link-globex'))
  await symlink('/', path.join(s.acme, 'link-root'))
  await symlink(s.hostSecret, path.join(s.acme, 'link-host-secret'))
  await symlink(path.join(s.root, 'pwned-dangling.txt'), path.join(s.acme, 'link-dangling'))
  await symlink('link-globex', path.join(s.acme, 'link-chain'))
  // A blob of globex's, for the blob-id attempts.
  const run = await s.request('globex-key', '/v1/runs', {
    tool_uses: [{ type: 'tool_use', id: 'toolu_big', name: 'Echo', input: { text: `${'z'.repeat(55_000)}` } }],
  })
  globexBlobId = (run.body as { blobs: Array<{ blob_id: string }> }).blobs[0]?.blob_id ?? 'missing'
}

let globexBlobId = 'missing'

for (const sandbox of ['bwrap', 'off'] as const) {
  describe(`escape attempts, sandbox ${sandbox}`, () => {
    let server: EscapeServer
    const failures: string[] = []
    beforeAll(async () => {
      server = await startEscapeServer(sandbox)
      await plantLinks(server)
    })
    afterAll(async () => {
      const { hits } = warmSandboxes.state()
      console.log(
        `escape suite (sandbox ${sandbox}): ${attempts.length} attempts, ${failures.length} succeeded; warm sandbox hits so far ${hits}`,
      )
      await server?.close()
    })

    it.each(attempts.map((attempt) => [attempt.name, attempt] as const))('%s', async (_name, attempt) => {
      const outcome = await attempt.run(server)
      const why = server.leak(outcome, outcome.named ?? '')
      const written: string[] = []
      for (const file of attempt.writes?.(server) ?? []) if (await exists(file)) written.push(file)
      if (why || written.length > 0) failures.push(attempt.name)
      expect(why, outcome.text.slice(0, 400)).toBeUndefined()
      expect(written).toEqual([])
    })
  })
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  )
}
