import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js'
import { validatorCompiler } from 'fastify-type-provider-zod'

type Validate = ReturnType<typeof validatorCompiler>
type Json = Record<string, unknown>

/** The body keys the fast check knows; a body with any other key (options, message) goes to zod. */
const FAST_KEYS = new Set(['tool_uses', 'wait', 'session_id'])
/** ToolUseBlockSchema's bounds on `id` and `name`. */
const MAX_NAME = 256

const isPlainObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isName = (value: unknown) => typeof value === 'string' && value.length >= 1 && value.length <= MAX_NAME

/**
 * The common body of `POST /v1/runs` — `tool_uses` of well-formed blocks, maybe `wait` and
 * `session_id` — checked by hand, giving the value zod would give (unknown block keys dropped,
 * `wait` defaulted); `undefined` for anything else, which zod then checks and words exactly as
 * before (docs/adr/0430-the-common-run-body-is-checked-by-hand.md).
 */
export function checkCommonRunBody(body: unknown): Json | undefined {
  if (!isPlainObject(body)) return undefined
  for (const key in body) if (!FAST_KEYS.has(key)) return undefined
  const { tool_uses: blocks, wait, session_id: sessionId } = body
  if (wait !== undefined && typeof wait !== 'boolean') return undefined
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId.length === 0)) return undefined
  let toolUses: Json[] | undefined
  if (blocks !== undefined) {
    if (!Array.isArray(blocks)) return undefined
    toolUses = new Array(blocks.length)
    for (let index = 0; index < blocks.length; index++) {
      const block: unknown = blocks[index]
      if (!isPlainObject(block) || block.type !== 'tool_use' || !isName(block.id) || !isName(block.name))
        return undefined
      if (block.input === undefined) return undefined
      toolUses[index] = { type: 'tool_use', id: block.id, name: block.name, input: block.input }
    }
  }
  // In CreateRunBodySchema's key order, as zod's value has them.
  return {
    ...(toolUses === undefined ? {} : { tool_uses: toolUses }),
    wait: wait ?? true,
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
  }
}

/**
 * The route's validator compiler: the hand check for the body and a request without an
 * Idempotency-Key, zod's validator for everything else and for whatever the hand check declines.
 */
export function createRunValidatorCompiler<S>(route: FastifyRouteSchemaDef<S>): Validate {
  // fastify types `schema` as the route's whole schema; at run time it is one part's (zod) schema.
  const zod = validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0])
  if (route.httpPart === 'body') {
    return (data) => {
      const value = checkCommonRunBody(data)
      return value === undefined ? zod(data) : { value }
    }
  }
  if (route.httpPart === 'headers') {
    // IdempotencyHeadersSchema has one optional key: without it, zod's value is an empty object.
    return (data) => (isPlainObject(data) && data['idempotency-key'] === undefined ? { value: {} } : zod(data))
  }
  return zod
}
