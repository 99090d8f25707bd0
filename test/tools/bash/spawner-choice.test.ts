// TOOLEXEC_SPAWNER=native must find an executable binary, or the service refuses to start
// (docs/adr/0501-choosing-the-spawner.md): the check names the path and why it cannot run.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NATIVE_SPAWNER, nativeSpawnerMissing } from '../../../src/tools/bash/spawner-choice.js'

describe('nativeSpawnerMissing', () => {
  let scratch: string
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'spawner-choice-'))
  })
  afterAll(() => rm(scratch, { recursive: true, force: true }))

  it('finds the binary the tests build', () => {
    expect(nativeSpawnerMissing()).toBeUndefined()
    expect(nativeSpawnerMissing(NATIVE_SPAWNER)).toBeUndefined()
  })

  it('says a missing binary is not built, with its path and how to build it', () => {
    const missing = path.join(scratch, 'toolexec-spawner')
    expect(nativeSpawnerMissing(missing)).toBe(
      `the native spawner is not built (${missing}: ENOENT; npm run build compiles it with cc)`,
    )
  })

  it('refuses a file that cannot be executed', async () => {
    const plain = path.join(scratch, 'not-executable')
    await writeFile(plain, '#!/bin/sh\n')
    await chmod(plain, 0o644)
    // root may execute nothing without an x bit either: access(X_OK) fails for every user.
    expect(nativeSpawnerMissing(plain)).toMatch(/not-executable: EACCES/)
  })
})
