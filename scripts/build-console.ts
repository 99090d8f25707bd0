/**
 * Builds the console (docs/console.md) into dist/console: one script and one stylesheet bundled
 * by esbuild, and the page. Run by `npm run build` (so `npm start` serves it) and before the tests.
 */
import { copyFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export async function buildConsole(outdir = path.join(root, 'dist', 'console')): Promise<void> {
  await mkdir(outdir, { recursive: true })
  await build({
    entryPoints: { app: path.join(root, 'console', 'src', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir,
    logLevel: 'warning',
    legalComments: 'none',
  })
  await copyFile(path.join(root, 'console', 'index.html'), path.join(outdir, 'index.html'))
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildConsole()
