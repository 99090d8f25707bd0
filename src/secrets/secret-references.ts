import { isSecretName, SECRET_NAME_RULE } from './secret-name.js'

/**
 * `${secret:NAME}` inside a settings string, next to the `${VAR}` and `${VAR:-default}` of the
 * environment (docs/adr/0332-secret-references.md). The loose form finds every attempt, so a
 * malformed name is refused at load rather than sent as written.
 */
const REFERENCE = /\$\{secret:([^}]*)\}/g

/** The names `text` refers to, in order (duplicates kept). */
export function secretReferencesIn(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((match) => match[1] ?? '')
}

/** What is wrong with the references in `text`, one line per bad name. */
export function badSecretReferences(text: string): string[] {
  return secretReferencesIn(text)
    .filter((name) => !isSecretName(name))
    .map((name) => `\${secret:${name}}: ${SECRET_NAME_RULE}`)
}

/** `text` with each reference replaced by its value, looked up by `resolve` (which throws for unknown names). */
export async function resolveSecretReferences(
  text: string,
  resolve: (name: string) => Promise<string>,
): Promise<string> {
  const names = [...new Set(secretReferencesIn(text))]
  if (names.length === 0) return text
  const values = new Map(await Promise.all(names.map(async (name) => [name, await resolve(name)] as const)))
  return text.replace(REFERENCE, (_whole, name: string) => values.get(name) ?? '')
}
