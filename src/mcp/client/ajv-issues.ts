import type { ErrorObject } from 'ajv'
import type { z } from 'zod'

export type InputIssue = z.core.$ZodSuperRefineIssue

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}

/** JSON Pointer → path segments; a segment is a number only where the value there is an array. */
function pointerToPath(pointer: string, input: unknown): PropertyKey[] {
  if (pointer === '') return []
  const path: PropertyKey[] = []
  let current: unknown = input
  for (const raw of pointer.split('/').slice(1)) {
    const segment = unescapePointer(raw)
    const key: PropertyKey = Array.isArray(current) && /^\d+$/.test(segment) ? Number(segment) : segment
    path.push(key)
    current =
      current !== null && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[key] : undefined
  }
  return path
}

function schemaTypeName(schema: unknown): string {
  if (schema === null || typeof schema !== 'object') return 'unknown'
  const type = (schema as { type?: unknown }).type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return type.join(' | ')
  return 'unknown'
}

function propertyTypeName(parentSchema: unknown, property: string): string {
  const properties = (parentSchema as { properties?: { [key: string]: unknown } } | undefined)?.properties
  return schemaTypeName(properties?.[property])
}

function listValues(values: unknown): string {
  return Array.isArray(values) ? values.map((value) => JSON.stringify(value)).join(', ') : JSON.stringify(values)
}

/** Ajv's wording, made a little more useful for a model where Ajv keeps the detail in params. */
function describe(error: ErrorObject, atRoot: boolean): string {
  const params = error.params as { [key: string]: unknown }
  let message = error.message ?? `fails the \`${error.keyword}\` rule`
  if (error.keyword === 'enum') message = `must be one of: ${listValues(params.allowedValues)}`
  if (error.keyword === 'const') message = `must be equal to ${JSON.stringify(params.allowedValue)}`
  return atRoot ? `The input ${message}` : message
}

/**
 * Turns Ajv errors into zod issues the engine already knows how to word: `required` becomes
 * an `invalid_type` at the missing key ("The required parameter `p` is missing"),
 * `additionalProperties` an `unrecognized_keys`, `type` an `invalid_type` with the expected
 * type, and anything else a `custom` issue carrying Ajv's message at the failing path.
 */
export function ajvErrorsToIssues(errors: readonly ErrorObject[], input: unknown): InputIssue[] {
  const issues: InputIssue[] = []
  const seen = new Set<string>()
  for (const error of errors) {
    const path = pointerToPath(error.instancePath, input)
    const params = error.params as { [key: string]: unknown }
    let issue: InputIssue
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      const expected = propertyTypeName(error.parentSchema, params.missingProperty)
      issue = {
        code: 'invalid_type',
        expected,
        path: [...path, params.missingProperty],
        message: `Required (${expected})`,
      }
    } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      issue = {
        code: 'unrecognized_keys',
        keys: [params.additionalProperty],
        path,
        message: `Unrecognized key: ${params.additionalProperty}`,
      }
    } else if (error.keyword === 'type') {
      const expected = String(params.type).split(',').join(' | ')
      issue = { code: 'invalid_type', expected, path, message: `Expected ${expected}` }
    } else {
      issue = { code: 'custom', path, message: describe(error, path.length === 0) }
    }
    const key = JSON.stringify([issue.code, issue.path, issue.message])
    if (seen.has(key)) continue
    seen.add(key)
    issues.push(issue)
  }
  return issues
}
