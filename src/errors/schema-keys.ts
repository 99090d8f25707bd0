import type { z } from 'zod'

type Def = {
  type: string
  shape?: Record<string, z.ZodType>
  element?: z.ZodType
  innerType?: z.ZodType
  in?: z.ZodType
  options?: readonly z.ZodType[]
  left?: z.ZodType
  right?: z.ZodType
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def

/** The schemas a value at `segment` of a value of `schema` may meet (unions give several). */
function childSchemas(schema: z.ZodType, segment: string): z.ZodType[] {
  const def = defOf(schema)
  switch (def.type) {
    case 'object': {
      const child = def.shape?.[segment]
      return child === undefined ? [] : [child]
    }
    case 'array':
      return def.element !== undefined && /^\d+$/.test(segment) ? [def.element] : []
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'catch':
      return def.innerType === undefined ? [] : childSchemas(def.innerType, segment)
    case 'pipe':
      return def.in === undefined ? [] : childSchemas(def.in, segment)
    case 'union':
      return (def.options ?? []).flatMap((option) => childSchemas(option, segment))
    case 'intersection':
      return [def.left, def.right].flatMap((side) => (side === undefined ? [] : childSchemas(side, segment)))
    default:
      return []
  }
}

/** The field names of the object schemas `schema` may be (unions and wrappers looked through). */
function fieldsOf(schema: z.ZodType): string[] {
  const def = defOf(schema)
  switch (def.type) {
    case 'object':
      return Object.keys(def.shape ?? {})
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'catch':
      return def.innerType === undefined ? [] : fieldsOf(def.innerType)
    case 'pipe':
      return def.in === undefined ? [] : fieldsOf(def.in)
    case 'union':
      return (def.options ?? []).flatMap(fieldsOf)
    case 'intersection':
      return [def.left, def.right].flatMap((side) => (side === undefined ? [] : fieldsOf(side)))
    default:
      return []
  }
}

/**
 * The fields a request schema accepts at `path` (`['tool_uses', '0']`), for "did you mean" on
 * an unknown field; empty where the schema is not a zod object there.
 */
export function knownFieldsAt(schema: z.ZodType | undefined, path: readonly string[]): string[] {
  let schemas = schema === undefined ? [] : [schema]
  for (const segment of path) schemas = schemas.flatMap((each) => childSchemas(each, segment))
  return [...new Set(schemas.flatMap(fieldsOf))]
}
