import type { z } from 'zod'

/** `a[0].b` style, as a model reads it back into its next call. */
function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out === '' ? String(key) : `.${String(key)}`
  }
  return out
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current: unknown = input
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return current
}

function hasKey(input: unknown, path: ReadonlyArray<PropertyKey>): boolean {
  if (path.length === 0) return true
  const parent = valueAt(input, path.slice(0, -1))
  return parent !== null && typeof parent === 'object' && Object.hasOwn(parent, path[path.length - 1] as PropertyKey)
}

/** The JSON type name a model would use for a value it sent. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function issueLine(issue: z.core.$ZodIssue, input: unknown): string[] {
  const path = formatIssuePath(issue.path)
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const keyPath = formatIssuePath([...issue.path, key])
      return `An unexpected parameter \`${keyPath}\` was provided`
    })
  }
  if (issue.code === 'invalid_type') {
    const received = jsonTypeOf(valueAt(input, issue.path))
    if (path === '') return [`The input type is expected as \`${issue.expected}\` but provided as \`${received}\``]
    if (!hasKey(input, issue.path)) return [`The required parameter \`${path}\` is missing`]
    return [`The parameter \`${path}\` type is expected as \`${issue.expected}\` but provided as \`${received}\``]
  }
  return [path === '' ? issue.message : `The parameter \`${path}\` is invalid: ${issue.message}`]
}

/**
 * Turns zod issues into the lines of an InputValidationError, one per problem, in words a
 * model can act on: missing parameters, unexpected ones, and wrong types with both type names.
 */
export function formatValidationIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string[] {
  return issues.flatMap((issue) => issueLine(issue, input))
}
