// Pins the shutdown of a listening server: a keep-alive connection whose response ends after
// `server.close()` has closed the idle ones is closed at once, so the close does not wait out the
// 72 s keep-alive timeout (docs/adr/0280-connections-idle-after-close-began-close-at-once.md).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, expect, it } from 'vitest'
import { buildApp } from '../../app.js'
import { deferred } from '../../src/async/deferred.js'
import { loadConfig } from '../../src/config/load-config.js'

let root: string | undefined
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true })
})

it('closes a keep-alive connection whose response ends after close began', async () => {
  root = await mkdtemp(path.join(tmpdir(), 'toolexec-close-'))
  const config = loadConfig({
    TOOLEXEC_WORKSPACE: path.join(root, 'workspace'),
    TOOLEXEC_BLOB_DIR: path.join(root, 'blobs'),
    TOOLEXEC_MEMORY_DIR: path.join(root, 'memory'),
    LOG_LEVEL: 'silent',
    TOOLEXEC_SANDBOX: 'off',
  })
  const app = await buildApp(config)
  // A response the test ends: it stands for a blob download whose file stream ends late.
  const held = deferred<string>()
  const arrived = deferred<void>()
  app.get('/test/held', async () => {
    arrived.resolve()
    return held.promise
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as import('node:net').AddressInfo

  // The held response ends only once the server has closed the connections idle at close.
  const closeIdle = app.server.closeIdleConnections.bind(app.server)
  app.server.closeIdleConnections = () => {
    closeIdle()
    held.resolve('late')
  }
  const response = fetch(`http://127.0.0.1:${port}/test/held`)
  await arrived.promise
  const closing = app.close()
  expect(await (await response).text()).toBe('late')
  // Before the fix the close waited for the keep-alive timeout (72 s); now it ends with the response.
  const outcome = await Promise.race([closing.then(() => 'closed'), delay(15_000, 'still open')])
  expect(outcome).toBe('closed')
}, 30_000)
