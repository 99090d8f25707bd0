// Pins the layering of SPEC §1: nothing in src/ imports fastify, a @fastify/* or fastify-* package,
// or anything from plugins/ or routes/.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.(ts|mts|cts|js|mjs)$/.test(entry.name) ? [full] : []
  })
}

/** Every module specifier a file imports, re-exports or loads dynamically. */
function importsOf(source: string): string[] {
  const patterns = [
    /\b(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!))
}

function isForbidden(specifier: string, file: string): boolean {
  if (specifier === 'fastify' || specifier.startsWith('fastify/') || specifier.startsWith('@fastify/')) return true
  if (/^fastify-/.test(specifier)) return true
  if (!specifier.startsWith('.')) return false
  const target = path.relative(root, path.resolve(path.dirname(file), specifier))
  return (
    target === 'plugins' ||
    target === 'routes' ||
    target.startsWith(`plugins${path.sep}`) ||
    target.startsWith(`routes${path.sep}`)
  )
}

describe('architecture', () => {
  it('keeps src/ free of fastify, plugins/ and routes/', () => {
    const offenders = sourceFiles(path.join(root, 'src')).flatMap((file) =>
      importsOf(readFileSync(file, 'utf8'))
        .filter((specifier) => isForbidden(specifier, file))
        .map((specifier) => `${path.relative(root, file)} imports ${specifier}`),
    )
    expect(offenders).toEqual([])
  })

  it('recognises every forbidden form (so the check above can fail)', () => {
    const file = path.join(root, 'src', 'runs', 'example.ts')
    const source = [
      "import Fastify from 'fastify'",
      "import type { FastifyInstance } from 'fastify'",
      "import websocket from '@fastify/websocket'",
      "import { validatorCompiler } from 'fastify-type-provider-zod'",
      "import fp from 'fastify-plugin'",
      "export { runsRoutes } from '../../routes/v1/runs/index.js'",
      "const plugin = await import('../../plugins/auth.js')",
      "import '../../plugins/errors.js'",
    ].join('\n')
    expect(importsOf(source).filter((specifier) => isForbidden(specifier, file))).toHaveLength(8)
    expect(isForbidden('../stores/stores.js', file)).toBe(false)
    expect(isForbidden('zod', file)).toBe(false)
  })
})
