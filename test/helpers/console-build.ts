import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildConsole } from '../../scripts/build-console.js'

let built: Promise<string> | undefined

/** The console built once per test process into a temp directory (`consoleDirectory` of the app). */
export function builtConsole(): Promise<string> {
  built ??= mkdtemp(path.join(tmpdir(), 'toolexec-console-')).then(async (directory) => {
    await buildConsole(directory)
    return directory
  })
  return built
}
