import fs from 'node:fs/promises'
import path from 'node:path'
import { ApiError } from '../errors/api-error.js'
import { isInside } from '../paths/is-inside.js'

/**
 * Resolves `requested` (relative to `root`, or absolute) to a real directory inside `root`,
 * creating it if needed. Symlinks are resolved before the check so none can point outside.
 */
export async function confineDirectory(root: string, requested: string, field: string): Promise<string> {
  await fs.mkdir(root, { recursive: true })
  const realRoot = await fs.realpath(root)
  const candidate = path.resolve(realRoot, requested)
  if (!isInside(realRoot, candidate)) throw outside(field, requested)
  await fs.mkdir(candidate, { recursive: true })
  const real = await fs.realpath(candidate)
  if (!isInside(realRoot, real)) throw outside(field, requested)
  return real
}

function outside(field: string, requested: string): ApiError {
  return new ApiError('path_outside_workspace', `${field} ${JSON.stringify(requested)} is outside the workspace`)
}
