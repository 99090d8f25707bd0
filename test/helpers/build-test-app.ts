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
    TOOLEXEC_MEMORY_DIR: path.join(root, 'memory'),
    TOOLEXEC_SECRETS_FILE: path.join(root, 'secrets.json'),
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
