import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { type BuildAppOptions, buildApp } from '../../app.js'
import { loadConfig } from '../../src/config/load-config.js'

export type TestAppOptions = BuildAppOptions & {
  /** Environment on top of the test defaults (temp dirs, silent logs, no sandbox). */
  env?: Record<string, string>
  /** `manual`: the caller closes it (for apps shared by a describe block). */
  lifetime?: 'test' | 'manual'
}

/** Builds the app on fresh temp directories; closes it and removes them after the test. */
export async function buildTestApp(options: TestAppOptions = {}) {
  const { env = {}, lifetime = 'test', ...appOptions } = options
  const root = await mkdtemp(path.join(tmpdir(), 'toolexec-test-'))
  const config = loadConfig({
    TOOLEXEC_WORKSPACE: path.join(root, 'workspace'),
    TOOLEXEC_BLOB_DIR: path.join(root, 'blobs'),
    LOG_LEVEL: 'silent',
    TOOLEXEC_SANDBOX: 'off',
    ...env,
  })
  const app = await buildApp(config, appOptions)
  await app.ready()
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await app.close()
    await rm(root, { recursive: true, force: true })
  }
  if (lifetime === 'test') onTestFinished(close)
  return { app, config, root, close }
}

export type TestApp = Awaited<ReturnType<typeof buildTestApp>>

/** A WebSocket frame as the tests read it. */
export type Frame = Record<string, unknown> & { type?: string }

/**
 * injectWS from a loopback address (its fake request has no socket of its own), with the frame
 * listener attached before the upgrade completes so no early frame is lost.
 */
export async function injectSocket(app: TestApp['app'], url: string, headers: Record<string, string> = {}) {
  const received: Frame[] = []
  const waiters: Array<{ test: (frame: Frame) => boolean; resolve: () => void }> = []
  let resolveClosed!: (close: { code: number; reason: string }) => void
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    resolveClosed = resolve
  })
  const socket = await app.injectWS(url, { headers, socket: { remoteAddress: '127.0.0.1' } } as never, {
    onInit: (ws) => {
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as Frame
        received.push(frame)
        for (const waiter of waiters.filter((candidate) => candidate.test(frame))) waiter.resolve()
      })
      ws.on('close', (code, reason) => resolveClosed({ code, reason: String(reason) }))
    },
  })
  /** Resolves once a frame passing `test` has arrived (or already had). */
  const until = (test: (frame: Frame) => boolean) =>
    received.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve }))
  const send = (frame: unknown) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame))
  return { socket, received, closed, until, send }
}
