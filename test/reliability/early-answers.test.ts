// Pins the lingering close (docs/security.md#connections): a client whose request is answered
// before its body was read (413 over the size limit, 401 without a key) and that goes on sending
// the body it announced still reads the problem+json answer. Before, the server destroyed the
// socket with the client's bytes unread, the kernel answered them with a reset, and whether a
// client read its 413 depended on the host's socket buffers and timing.
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'

const LIMIT = 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 0x61)

/** The host's largest socket buffers: a body beyond both cannot sit in the kernel while the server closes. */
function socketBufferBytes(): number {
  const max = (file: string) => {
    try {
      return Number(readFileSync(file, 'utf8').trim().split(/\s+/).at(-1))
    } catch {
      return 0
    }
  }
  return max('/proc/sys/net/ipv4/tcp_rmem') + max('/proc/sys/net/ipv4/tcp_wmem')
}

type RawAnswer = { head: string; body: string; resetBy: string | undefined }

/**
 * Over a plain socket: announces `total` bytes, sends one chunk, waits until the whole answer
 * has arrived (it comes early), then sends the rest and ends its side, as a client that does
 * not watch for early answers does. Deterministic: the answer is read before the rest is sent.
 */
async function sendAfterAnswer(port: number, total: number, extraHeaders = ''): Promise<RawAnswer> {
  const socket: Socket = connect(port, '127.0.0.1')
  let received = ''
  let resetBy: string | undefined
  socket.on('error', (error: NodeJS.ErrnoException) => {
    resetBy = error.code
  })
  socket.setEncoding('utf8')
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (text: string) => {
      received += text
      const [head = '', body = ''] = received.split('\r\n\r\n')
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN)
      if (Buffer.byteLength(body) >= length) resolve()
    })
  })
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.write(
    `POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n${extraHeaders}\r\n`,
  )
  socket.write(CHUNK)
  await answered
  for (let sent = CHUNK.length; sent < total && !socket.destroyed; sent += CHUNK.length) {
    if (!socket.write(CHUNK.subarray(0, Math.min(CHUNK.length, total - sent)))) {
      await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve))
    }
  }
  socket.end()
  await closed
  const [head = '', body = ''] = received.split('\r\n\r\n')
  return { head, body, resetBy }
}

describe('early answers', () => {
  it('reads what a client sends after its 413, so the client is not reset', async () => {
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_MAX_BODY_BYTES: String(LIMIT) } })
    const answer = await sendAfterAnswer(Number(new URL(baseUrl).port), 3 * LIMIT)
    expect(answer.head).toMatch(/^HTTP\/1\.1 413 /)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'body_too_large' })
    expect(answer.resetBy).toBeUndefined()
  })

  it('does the same for a 401 without a key', async () => {
    const { baseUrl } = await startTestServer({
      env: { TOOLEXEC_MAX_BODY_BYTES: String(LIMIT), TOOLEXEC_API_KEYS: 'acme:secret' },
    })
    const answer = await sendAfterAnswer(Number(new URL(baseUrl).port), LIMIT / 2)
    expect(answer.head).toMatch(/^HTTP\/1\.1 401 /)
    expect(JSON.parse(answer.body)).toMatchObject({ status: 401 })
    expect(answer.resetBy).toBeUndefined()
  })

  it('stops reading at its byte bound and closes', async () => {
    const { baseUrl } = await startTestServer({
      env: { TOOLEXEC_MAX_BODY_BYTES: String(LIMIT), TOOLEXEC_LINGER_MAX_BYTES: String(LIMIT) },
    })
    const answer = await sendAfterAnswer(Number(new URL(baseUrl).port), 64 * LIMIT)
    expect(answer.head).toMatch(/^HTTP\/1\.1 413 /)
    // The client's later bytes met a closed socket.
    expect(answer.resetBy).toMatch(/ECONNRESET|EPIPE/)
  })

  it('answers fetch, and curl, a body beyond the socket buffers with its 413 every time', async () => {
    const total = Math.max(3 * LIMIT, socketBufferBytes() + 8 * LIMIT)
    const { baseUrl } = await startTestServer({
      env: { TOOLEXEC_MAX_BODY_BYTES: String(LIMIT), TOOLEXEC_LINGER_MAX_BYTES: String(total) },
    })
    const body = Buffer.alloc(total, 0x61)
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await fetch(`${baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(response.status).toBe(413)
      expect(((await response.json()) as { code: string }).code).toBe('body_too_large')
    }
    const file = path.join(tmpdir(), `toolexec-big-${process.pid}.json`)
    writeFileSync(file, body)
    const { stdout } = await promisify(execFile)('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '-H',
      'content-type: application/json',
      '--data-binary',
      `@${file}`,
      `${baseUrl}/v1/runs`,
    ])
    expect(stdout).toBe('413')
  }, 120_000)
})
