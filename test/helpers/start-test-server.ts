import type { AddressInfo } from 'node:net'
import { buildTestApp, type TestAppOptions } from './build-test-app.js'

/** The app listening on a free loopback port, for tests with real HTTP and WebSocket clients. */
export async function startTestServer(options: TestAppOptions = {}) {
  const testApp = await buildTestApp(options)
  await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = testApp.app.server.address() as AddressInfo
  return { ...testApp, baseUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}` }
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>
