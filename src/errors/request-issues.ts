import { didYouMean } from './did-you-mean.js'

/** One validation problem: where (the request part and a JSON pointer into it) and what. */
export type RequestIssue = { location: string; pointer: string; message: string }

/** A schema-validation failure as fastify-type-provider-zod reports it (a zod issue, flattened). */
export type ValidationFailure = {
  keyword: string
  instancePath: string
  message: string
  params: Record<string, unknown>
}

/**
 * Validation failures in plain words, each with a JSON pointer into the part of the request it
 * is about. Zod's own texts name its internals ("expected nonoptional"); a client needs to know
 * which field is missing, wrong or unknown, and the usual slip — the tool input sent as
 * `arguments`, as other APIs call it — is named, and an unknown field gets the nearest known one
 * (docs/adr/0134-validation-problems-list-issues.md, docs/adr/0283-did-you-mean.md).
 */
export function requestIssues(
  location: string,
  failures: readonly ValidationFailure[],
  data: unknown,
  knownFields: (path: readonly string[]) => readonly string[] = () => [],
): RequestIssue[] {
  const issues = failures.flatMap((failure) => {
    const path = failure.instancePath
      .split('/')
      .slice(1)
      .filter((segment) => segment !== '')
    const issue = (segments: string[], message: string): RequestIssue => ({
      location,
      pointer: segments.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join(''),
      message,
    })
    if (failure.keyword === 'unrecognized_keys') {
      const keys = Array.isArray(failure.params.keys) ? failure.params.keys.map(String) : []
      return keys.map((key) => issue([...path, key], unknownKeyMessage(key, knownFields(path))))
    }
    if (failure.keyword === 'invalid_type') {
      const parent = valueAt(data, path.slice(0, -1))
      const key = path.at(-1)
      const present = key !== undefined && isObject(parent) && Object.hasOwn(parent, key)
      if (key !== undefined && !present) {
        const hint = MISSING_FIELD_HINTS.find(
          (candidate) => candidate.key === key && Object.hasOwn(parent ?? {}, candidate.sibling),
        )
        return [issue(path, `\`${key}\` is required${hint?.text ?? ''}`)]
      }
      const expected = String(failure.params.expected)
      const value = valueAt(data, path)
      // A query value is always text: show it, `after=abc` is clearer than "not a string".
      const given = location === 'querystring' ? JSON.stringify(value) : jsonTypeOf(value)
      return [{ ...issue(path, `must be ${article(expected)} ${expected}, not ${given}`), wrongType: true }]
    }
    return [issue(path, failure.message)]
  })
  // A value of the wrong type also fails the checks of the type it should have been ("Too big:
  // expected string to have <=2 characters" for an array sent as a string): only the type counts.
  const wrongType = new Set(issues.filter((each) => 'wrongType' in each).map((each) => each.pointer))
  return issues
    .filter((each) => 'wrongType' in each || !wrongType.has(each.pointer))
    .map(({ location: where, pointer, message }) => ({ location: where, pointer, message }))
}

/** `body.tool_uses.0.input: …; …`, the text form for the problem's `detail`. */
export function describeIssues(issues: readonly RequestIssue[]): string {
  return issues
    .map(({ location, pointer, message }) => `${location}${pointer.replaceAll('/', '.')}: ${message}`)
    .join('; ')
}

/** Missing fields whose sibling shows the slip: the input sent as `arguments`, a stream block sent unwrapped. */
const MISSING_FIELD_HINTS = [
  { key: 'input', sibling: 'arguments', text: ' (the tool input goes in `input`, not `arguments`)' },
  {
    key: 'tool_use',
    sibling: 'id',
    text: ': wrap the block, {"type": "tool_use", "tool_use": {"type": "tool_use", "id": …, "name": …, "input": …}}',
  },
]

function unknownKeyMessage(key: string, known: readonly string[]): string {
  if (key === 'arguments') return 'unknown field `arguments`: the tool input goes in `input`'
  const meant = didYouMean(key, known)
  return meant === undefined ? `unknown field \`${key}\`` : `unknown field \`${key}\`: did you mean \`${meant}\`?`
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let current = data
  for (const key of path) {
    if (!isObject(current)) return undefined
    current = current[key]
  }
  return current
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object'
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value === undefined) return 'missing'
  return `${article(typeof value)} ${typeof value}`
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a')
