import fs from 'node:fs/promises'
import path from 'node:path'
import { ApiError } from '../errors/api-error.js'
import { isInside } from '../paths/is-inside.js'
import { openDirectoryInside, PathChangedError } from '../paths/open-inside.js'
import { resolveRealPath } from '../paths/resolve-real-path.js'

/** Linux caps one path component at 255 bytes (NAME_MAX) and a whole path at 4,095 (PATH_MAX). */
const MAX_NAME_BYTES = 255
const MAX_PATH_BYTES = 4_095

/**
 * Resolves `requested` (relative to `root`, or absolute) to a real directory inside `root`,
 * creating it if needed. Symlinks are resolved and checked before anything is created, and
 * missing components are made one at a time below checked descriptors, so a link (even one
 * planted meanwhile) cannot make the service create directories outside
 * (docs/adr/0091-open-through-checked-descriptors.md). Refusals never name a host path.
 */
export async function confineDirectory(root: string, requested: string, field: string): Promise<string> {
  if (requested.includes('\u0000')) throw invalid(field, 'contains a NUL byte')
  if (requested.split(/[\\/]/).some((name) => Buffer.byteLength(name) > MAX_NAME_BYTES)) {
    throw invalid(field, `has a path component longer than ${MAX_NAME_BYTES} bytes`)
  }
  await fs.mkdir(root, { recursive: true })
  const realRoot = await fs.realpath(root)
  const candidate = path.resolve(realRoot, requested)
  if (!isInside(realRoot, candidate)) throw outside(field, requested)
  // Made one component at a time, a directory could nest past what any path can name.
  if (Buffer.byteLength(candidate) > MAX_PATH_BYTES) throw invalid(field, `is longer than ${MAX_PATH_BYTES} bytes`)
  const resolved = await resolveRealPath(candidate).catch(() => null)
  if (resolved === null || !isInside(realRoot, resolved)) throw outside(field, requested)
  try {
    await (await openDirectoryInside([realRoot], resolved, { create: true })).close()
  } catch (error) {
    if (error instanceof PathChangedError) throw outside(field, requested)
    throw invalid(field, 'is not a directory that can be created in the workspace')
  }
  const real = await fs.realpath(candidate).catch(() => null)
  if (real === null || !isInside(realRoot, real)) throw outside(field, requested)
  return real
}

function outside(field: string, requested: string): ApiError {
  return new ApiError('path_outside_workspace', `${field} ${JSON.stringify(requested)} is outside the workspace`)
}

function invalid(field: string, why: string): ApiError {
  return new ApiError('invalid_request', `${field} ${why}`)
}
