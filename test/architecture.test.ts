// Pins the layering of docs/design.md §1: nothing in src/ imports fastify, a @fastify/* or fastify-* package,
// or anything from plugins/ or routes/; plugins/ never imports routes/; and inside src/ a folder
// imports only folders of a lower rank (docs/adr/0060-folder-ranks-in-src.md), so no cycle returns.
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

/**
 * The folders of src/, lowest rank first. A file may import its own folder and any folder of a
 * strictly lower rank, type-only imports included; two folders of one rank never import each other.
 */
const FOLDER_RANKS: readonly (readonly string[])[] = [
  ['messages', 'errors', 'async', 'paths', 'shell', 'logging', 'telemetry', 'net', 'notify', 'console'],
  ['events', 'auth', 'results', 'secrets'],
  ['tool', 'metrics'],
  ['tools', 'stores', 'mcp/client'],
  ['executor', 'audit'],
  ['permissions', 'hooks'],
  ['config', 'registry', 'sessions'],
  ['runs'],
  ['mcp/endpoint', 'managed-agents'],
]

/** `tools/bash/x.ts` → `tools`, `mcp/client/x.ts` → `mcp/client`: the unit the ranks speak of. */
function folderOf(sourcePath: string): string {
  const parts = path.relative(path.join(root, 'src'), sourcePath).split(path.sep).slice(0, -1)
  return parts[0] === 'mcp' ? parts.slice(0, 2).join('/') : (parts[0] ?? '')
}

function rankOf(folder: string): number {
  return FOLDER_RANKS.findIndex((rank) => rank.includes(folder))
}

/** Why `specifier` in `file` climbs the ranks, or undefined when the import is allowed. */
function rankViolation(specifier: string, file: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const target = path.resolve(path.dirname(file), specifier)
  if (!target.startsWith(path.join(root, 'src') + path.sep)) return undefined
  const from = folderOf(file)
  const to = folderOf(target)
  if (from === to || rankOf(to) < rankOf(from)) return undefined
  return `src/${from} (rank ${rankOf(from)}) imports src/${to} (rank ${rankOf(to)})`
}

describe('architecture', () => {
  it('gives every folder of src/ a rank', () => {
    const folders = new Set(sourceFiles(path.join(root, 'src')).map(folderOf))
    expect([...folders].filter((folder) => rankOf(folder) === -1)).toEqual([])
  })

  it('lets src/ folders import only folders of a lower rank', () => {
    const offenders = sourceFiles(path.join(root, 'src')).flatMap((file) =>
      importsOf(readFileSync(file, 'utf8')).flatMap((specifier) => {
        const violation = rankViolation(specifier, file)
        return violation === undefined ? [] : [`${path.relative(root, file)}: ${violation}`]
      }),
    )
    expect(offenders).toEqual([])
  })

  it('recognises an import that climbs the ranks or closes a cycle (so the check above can fail)', () => {
    const executorFile = path.join(root, 'src', 'executor', 'example.ts')
    expect(rankViolation('../runs/run-manager.js', executorFile)).toBe(
      'src/executor (rank 4) imports src/runs (rank 7)',
    )
    expect(rankViolation('../permissions/decide-permission.js', executorFile)).toBeDefined()
    expect(rankViolation('../tool/tool.js', executorFile)).toBeUndefined()
    expect(rankViolation('./tracked-call.js', executorFile)).toBeUndefined()
    // Subfolders of runs/ (stream/, control/, capacity/, lost/) count as runs.
    const streamFile = path.join(root, 'src', 'runs', 'stream', 'example.ts')
    expect(rankViolation('../capacity/admission.js', streamFile)).toBeUndefined()
    expect(rankViolation('../run-manager.js', streamFile)).toBeUndefined()
    expect(rankViolation('../../mcp/endpoint/x.js', streamFile)).toBeDefined()
    const clientFile = path.join(root, 'src', 'mcp', 'client', 'example.ts')
    expect(rankViolation('../endpoint/create-mcp-endpoint.js', clientFile)).toBeDefined()
    expect(rankViolation('../tools/bash/bash-limits.js', path.join(root, 'src', 'stores', 'x.ts'))).toBeDefined()
  })

  it('keeps plugins/ free of routes/', () => {
    const offenders = sourceFiles(path.join(root, 'plugins')).flatMap((file) =>
      importsOf(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => path.relative(root, path.resolve(path.dirname(file), specifier)))
        .filter((target) => target === 'routes' || target.startsWith(`routes${path.sep}`))
        .map((target) => `${path.relative(root, file)} imports ${target}`),
    )
    expect(offenders).toEqual([])
  })

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
