import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** One built file of the console, held in memory: the whole console is a few hundred kilobytes. */
export type ConsoleAsset = { body: Buffer; contentType: string; etag: string }

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

/**
 * Where `npm run build` writes the console: `dist/console`, found from this module whether it
 * runs compiled (`dist/src/console/`) or from source under the test runner (`src/console/`).
 */
export function defaultConsoleDirectory(): string {
  const above = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
  return path.basename(above) === 'dist' ? path.join(above, 'console') : path.join(above, 'dist', 'console')
}

/**
 * The built console, file name → asset, or undefined when it was not built (only `tsc` ran).
 * Read once at start: the files change only with a new build, which a restart serves.
 */
export function loadConsoleAssets(directory: string): Map<string, ConsoleAsset> | undefined {
  if (!existsSync(path.join(directory, 'index.html'))) return undefined
  const assets = new Map<string, ConsoleAsset>()
  for (const name of readdirSync(directory)) {
    const contentType = CONTENT_TYPES[path.extname(name)]
    if (contentType === undefined) continue
    const body = readFileSync(path.join(directory, name))
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
    assets.set(name, { body, contentType, etag })
  }
  return assets
}
