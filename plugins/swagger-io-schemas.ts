import { isDeepStrictEqual } from 'node:util'

type Document = { paths?: unknown; components?: { schemas?: Record<string, unknown> } }

const PREFIX = '#/components/schemas/'
const INPUT = 'Input'

/**
 * fastify-type-provider-zod renders every registered schema twice: `X` as zod's output (for
 * responses) and `XInput` as its input (for requests). Most components are only ever one of the
 * two, and a generated client then meets two names for one thing. This keeps one component per
 * schema, under its own id, in the form the routes use; a schema that requests and responses both
 * use and that renders differently keeps both (docs/adr/0131-one-component-per-schema.md).
 */
export function mergeIoSchemas<T extends Document>(document: T): T {
  const schemas = document.components?.schemas ?? {}
  const pairs = Object.keys(schemas).filter((name) => name.endsWith(INPUT) && schemas[name.slice(0, -INPUT.length)])
  const used = referenced(document.paths, schemas)
  // Where each `XInput` reference goes: to `X` unless both forms stay.
  const target = new Map<string, string>()
  const merged: Record<string, unknown> = { ...schemas }
  for (const inputName of pairs) {
    const name = inputName.slice(0, -INPUT.length)
    target.set(inputName, name)
    delete merged[inputName]
  }
  for (const inputName of pairs) {
    const name = inputName.slice(0, -INPUT.length)
    const input = retarget(schemas[inputName], target)
    const inputUsed = used.has(inputName)
    const outputUsed = used.has(name)
    if (inputUsed && !outputUsed) merged[name] = input
    else if (inputUsed && outputUsed && !isDeepStrictEqual(input, retarget(schemas[name], target))) {
      target.delete(inputName)
      merged[inputName] = schemas[inputName]
    }
  }
  const components = Object.fromEntries(Object.entries(merged).map(([key, value]) => [key, retarget(value, target)]))
  return {
    ...document,
    paths: retarget(document.paths, target),
    components: { ...document.components, schemas: components },
  }
}

/** The component names reachable from the paths. */
function referenced(paths: unknown, schemas: Record<string, unknown>): Set<string> {
  const found = new Set<string>()
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const child of value) visit(child)
      return
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)) {
        const name = child.slice(PREFIX.length)
        if (!found.has(name)) {
          found.add(name)
          visit(schemas[name])
        }
      } else visit(child)
    }
  }
  visit(paths)
  return found
}

function retarget(value: unknown, target: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((child) => retarget(child, target))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => {
      if (key !== '$ref' || typeof child !== 'string' || !child.startsWith(PREFIX))
        return [key, retarget(child, target)]
      const name = target.get(child.slice(PREFIX.length))
      return [key, name === undefined ? child : `${PREFIX}${name}`]
    }),
  )
}
