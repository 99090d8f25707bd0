/**
 * A secret's name: what settings refer to (`${secret:NAME}`) and the path segment of
 * `/v1/secrets/{name}`. Letters, digits, `_`, `-` and `.`, starting with a letter or digit, at
 * most 128 characters: safe in a URL, a file, a Redis hash field and a log line as it is.
 */
const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/

export const SECRET_NAME_RULE =
  'a secret name is 1 to 128 letters, digits, `_`, `-` or `.`, starting with a letter or digit'

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name)
}
