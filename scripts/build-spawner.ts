/**
 * Compiles the native spawner (native/*.c and spawner.h, docs/adr/0499-the-native-spawner.md) to
 * `<root>/native/toolexec-spawner`: `tsx scripts/build-spawner.ts` for runs from source (the
 * tests' globalSetup does the same), `tsx scripts/build-spawner.ts dist` for the build. Without a
 * C compiler it says so and leaves the Node spawner in force; a compile error fails.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url))
const NATIVE = path.join(REPOSITORY, 'native')
/** Its translation units and header (spawner.c says what each holds), in a stable order. */
const SOURCES = readdirSync(NATIVE)
  .filter((name) => /\.[ch]$/.test(name))
  .sort()
  .map((name) => path.join(NATIVE, name))
const FLAGS = ['-std=c11', '-O2', '-Wall', '-Wextra', '-Werror']

function mtime(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs
  } catch {
    return undefined
  }
}

/** Builds the binary under `root` unless it is newer than every source; says what happened. */
export function buildSpawner(root = REPOSITORY): string {
  const target = path.join(root, 'native', 'toolexec-spawner')
  const built = mtime(target)
  if (built !== undefined && SOURCES.every((source) => built >= (mtime(source) ?? 0))) return `${target}: up to date`
  const compiler = process.env.CC ?? 'cc'
  mkdirSync(path.dirname(target), { recursive: true })
  // Written beside, then renamed: a test run started meanwhile sees the old binary or the new, never half of one.
  const partial = `${target}.${process.pid}.tmp`
  try {
    const units = SOURCES.filter((source) => source.endsWith('.c'))
    execFileSync(compiler, [...FLAGS, '-o', partial, ...units], { stdio: ['ignore', 'inherit', 'inherit'] })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return `no C compiler (${compiler}): the Node spawner stays in force (install gcc and libc6-dev)`
    throw error
  }
  renameSync(partial, target)
  return `${target}: built`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ? path.resolve(process.argv[2]) : REPOSITORY
  // On stderr: `npm start` builds first, and its stdout is the server's JSON log.
  console.error(`native spawner: ${buildSpawner(root)}`)
}
