// Pins the check-then-open race: while a directory flips between a real directory and a link
// (to another tenant's workspace, or outside every workspace) for 20 s, Reads and Writes through
// it never read or write the other side. Prints the attempts; docs/security.md § Figures.
import { spawn } from 'node:child_process'
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EscapeServer, GLOBEX_SECRET, HOST_SECRET, startEscapeServer } from './escape-harness.js'

const FLIP_MS = 20_000
const BATCH = 8

/**
 * Another process flips `flip` between the real directory and the two links by renames, as a
 * second session's Bash would: a separate process, so the server's event loop is not slowed.
 */
function startFlipper(acme: string) {
  const script = `
    const fs = require('node:fs'); const path = require('node:path'); const at = (n) => path.join(${JSON.stringify(acme)}, n)
    let flips = 0; const stop = Date.now() + ${FLIP_MS}
    while (Date.now() < stop) {
      for (const side of ['flip.real', 'flip.globex', 'flip.real', 'flip.host']) {
        // A Write may have made a real 'flip' while the name was free: clear it (it is acme's own).
        try { fs.renameSync(at(side), at('flip')) } catch {
          try { fs.rmSync(at('flip'), { recursive: true, force: true }) } catch {}
          continue
        }
        fs.renameSync(at('flip'), at(side)); flips += 1
      }
    }
    console.log(flips)`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  return new Promise<number>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', () => resolve(Number(output.trim())))
  })
}

describe('a directory flipping between real and a link for 20 s', () => {
  let server: EscapeServer
  let hostDirectory: string
  beforeAll(async () => {
    server = await startEscapeServer('bwrap')
    hostDirectory = path.join(server.root, 'host-dir')
    await mkdir(hostDirectory)
    await writeFile(path.join(hostDirectory, 'file.txt'), `${HOST_SECRET}\n`)
    await writeFile(path.join(server.globex, 'file.txt'), `${GLOBEX_SECRET}\n`)
    await mkdir(path.join(server.acme, 'flip.real'))
    await writeFile(path.join(server.acme, 'flip.real', 'file.txt'), 'ACME-OWN\n')
    await symlink(server.globex, path.join(server.acme, 'flip.globex'))
    await symlink(hostDirectory, path.join(server.acme, 'flip.host'))
  })
  afterAll(() => server?.close())

  it('leaks nothing through Read or Write', { timeout: FLIP_MS + 40_000 }, async () => {
    const sessionId = await server.sessionId()
    const counts = { reads: 0, readsServed: 0, writes: 0, writesDone: 0, flips: 0 }
    const leaks: string[] = []
    const flipped = startFlipper(server.acme)
    const stop = Date.now() + FLIP_MS
    let n = 0
    while (Date.now() < stop) {
      const uses = Array.from({ length: BATCH }, (_unused, index) =>
        index % 4 === 3
          ? { name: 'Write', input: { file_path: `flip/out-${n++}.txt`, content: 'ACME-WRITE\n' } }
          : { name: 'Read', input: { file_path: 'flip/file.txt' } },
      )
      const run = await server.request('acme-key', '/v1/runs', {
        session_id: sessionId,
        tool_uses: uses.map((use, index) => ({ type: 'tool_use', id: `toolu_${index}`, ...use })),
      })
      const results = (run.body as { results: Array<{ content: unknown; is_error?: boolean }> }).results
      results.forEach((result, index) => {
        const text = JSON.stringify(result.content)
        const isRead = uses[index]?.name === 'Read'
        if (isRead) counts.reads += 1
        else counts.writes += 1
        if (text.includes(GLOBEX_SECRET) || text.includes(HOST_SECRET)) leaks.push(text.slice(0, 200))
        if (!result.is_error) {
          if (isRead) counts.readsServed += 1
          else counts.writesDone += 1
        }
      })
    }
    counts.flips = await flipped
    const strayWrites = [
      ...(await readdir(server.globex)).filter((name) => name.startsWith('out-')),
      ...(await readdir(hostDirectory)).filter((name) => name.startsWith('out-')),
    ]
    leaks.push(...strayWrites.map((name) => `write landed outside: ${name}`))
    console.log(
      `flip race: ${counts.flips} flips; ${counts.reads} Reads (${counts.readsServed} served), ${counts.writes} Writes (${counts.writesDone} done); ${leaks.length} leaks`,
    )
    expect(counts.flips).toBeGreaterThan(100)
    expect(counts.reads).toBeGreaterThan(100)
    expect(leaks).toEqual([])
  })
})
