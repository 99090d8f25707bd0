/**
 * Compiles the native spawner (native/*.c and spawner.h, docs/adr/0499-the-native-spawner.md) to
 * `<root>/native/toolexec-spawner`, and the service's one addon (native/addon/lstat-mtimes.c,
 * docs/adr/0585-newest-first-stamps-without-stats-objects.md) to
 * `<root>/native/addon/lstat-mtimes.node`: `tsx scripts/build-spawner.ts` for runs from source (the
 * tests' globalSetup does the same), `tsx scripts/build-spawner.ts dist` for the build. Without a
 * C compiler (or Node's headers, for the addon) it says so and leaves the Node spawner, or
 * `lstatSync`, in force; a compile error fails.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs'
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
  const units = SOURCES.filter((source) => source.endsWith('.c'))
  return compileUnlessFresh(
    path.join(root, 'native', 'toolexec-spawner'),
    SOURCES,
    [...FLAGS, ...units],
    'the Node spawner',
  )
}

const ADDON_SOURCE = path.join(NATIVE, 'addon', 'lstat-mtimes.c')
/** Node's own headers (node_api.h), beside the running node as its releases install them. */
const NODE_HEADERS = path.join(path.dirname(process.execPath), '..', 'include', 'node')

/** Builds the lstat-mtimes addon under `root` unless it is newer than its source; says what happened. */
export function buildAddon(root = REPOSITORY): string {
  const target = path.join(root, 'native', 'addon', 'lstat-mtimes.node')
  if (!existsSync(path.join(NODE_HEADERS, 'node_api.h')))
    return `${target}: no node_api.h under ${NODE_HEADERS}: lstatSync stays in force`
  const flags = [...FLAGS, '-shared', '-fPIC', '-I', NODE_HEADERS, ADDON_SOURCE]
  return compileUnlessFresh(target, [ADDON_SOURCE], flags, 'lstatSync')
}

/** `cc flags -o target` unless target is newer than every source; `fallback` names what stays in force without cc. */
function compileUnlessFresh(target: string, sources: readonly string[], flags: readonly string[], fallback: string) {
  const built = mtime(target)
  if (built !== undefined && sources.every((source) => built >= (mtime(source) ?? 0))) return `${target}: up to date`
  const compiler = process.env.CC ?? 'cc'
  mkdirSync(path.dirname(target), { recursive: true })
  // Written beside, then renamed: a test run started meanwhile sees the old binary or the new, never half of one.
  const partial = `${target}.${process.pid}.tmp`
  try {
    execFileSync(compiler, [...flags, '-o', partial], { stdio: ['ignore', 'inherit', 'inherit'] })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return `no C compiler (${compiler}): ${fallback} stays in force (install gcc and libc6-dev)`
    throw error
  }
  renameSync(partial, target)
  return `${target}: built`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ? path.resolve(process.argv[2]) : REPOSITORY
  // On stderr: `npm start` builds first, and its stdout is the server's JSON log.
  console.error(`native spawner: ${buildSpawner(root)}`)
  console.error(`lstat-mtimes addon: ${buildAddon(root)}`)
}
