import { Ajv, type Options, type ValidateFunction } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { z } from 'zod'
import type { AnyObjectSchema } from '../../tool/tool.js'
import { ajvErrorsToIssues } from './ajv-issues.js'

const AJV_OPTIONS: Options = {
  allErrors: true,
  // `verbose` keeps the parent schema on each error: it names the type of a missing property.
  verbose: true,
  // Servers write schemas by hand or generate them loosely; validate what is checkable, ignore the rest.
  strict: false,
  validateSchema: false,
  validateFormats: false,
  // Two servers may reuse one `$id`: never register schemas globally.
  addUsedSchema: false,
  logger: false,
}

type Dialect = 'draft-07' | '2019-09' | '2020-12'
const validators = new Map<Dialect, Ajv>()

function ajvFor(schema: { [key: string]: unknown }): Ajv {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : ''
  const dialect: Dialect = declared.includes('2020-12')
    ? '2020-12'
    : declared.includes('2019-09')
      ? '2019-09'
      : 'draft-07'
  let ajv = validators.get(dialect)
  if (!ajv) {
    ajv =
      dialect === '2020-12'
        ? (new Ajv2020(AJV_OPTIONS) as Ajv)
        : dialect === '2019-09'
          ? (new Ajv2019(AJV_OPTIONS) as Ajv)
          : new Ajv(AJV_OPTIONS)
    validators.set(dialect, ajv)
  }
  return ajv
}

function compile(schema: { [key: string]: unknown }): ValidateFunction {
  try {
    return ajvFor(schema).compile(schema)
  } catch (error) {
    // An unknown `$schema` (draft-04, a private meta-schema) is the usual cause: try without it.
    if (schema.$schema === undefined) throw error
    const { $schema: _ignored, ...rest } = schema
    return ajvFor(rest).compile(rest)
  }
}

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export type JsonSchemaInput = {
  schema: AnyObjectSchema
  /** Set when the server's schema could not be compiled: inputs are then only checked to be objects. */
  compileError?: string
}

/**
 * A zod schema that validates with Ajv against an MCP server's JSON Schema and passes the
 * input through unchanged (the server applies its own defaults). Each Ajv error becomes one
 * zod issue, so the engine's InputValidationError reads the same as for built-in tools.
 */
export function createJsonSchemaInput(jsonSchema: { [key: string]: unknown }): JsonSchemaInput {
  let validate: ValidateFunction | undefined
  let compileError: string | undefined
  try {
    validate = compile(jsonSchema)
  } catch (error) {
    compileError = error instanceof Error ? error.message : String(error)
  }
  const schema = z.custom<{ [key: string]: unknown }>().superRefine((value, context) => {
    if (!isPlainObject(value)) {
      context.addIssue({ code: 'invalid_type', expected: 'object', path: [], message: 'Expected object' })
      return
    }
    if (!validate || validate(value)) return
    for (const issue of ajvErrorsToIssues(validate.errors ?? [], value)) context.addIssue(issue)
  })
  return compileError === undefined ? { schema } : { schema, compileError }
}
