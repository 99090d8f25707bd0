import { badSecretReferences, secretReferencesIn } from '../secrets/secret-references.js'

/**
 * Where `${secret:NAME}` may stand in the settings file (docs/adr/0332-secret-references.md):
 * values of an MCP server's `headers` and `env`, its `oauth.client_secret` and `oauth.private_key`
 * (docs/adr/0422-oauth-settings.md), and of an HTTP hook's `headers`. Anywhere else a
 * value would show where it must not (a command line is readable by every user of the host, a
 * URL is logged), so a reference there is refused at load.
 */
const ALLOWED_PATHS = [
  /^mcpServers\.[^.]+\.(headers|env)\.[^.]+$/,
  /^mcpServers\.[^.]+\.oauth\.(client_secret|private_key)$/,
  /^hooks\.(PreToolUse|PostToolUse|PostToolUseFailure)\[\d+\]\.hooks\[\d+\]\.headers\.[^.]+$/,
]

function stringsOf(value: unknown, path: string, out: [string, string][]): [string, string][] {
  if (typeof value === 'string') out.push([path, value])
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) stringsOf(item, `${path}[${index}]`, out)
  } else if (value !== null && typeof value === 'object')
    for (const [key, child] of Object.entries(value)) stringsOf(child, path === '' ? key : `${path}.${key}`, out)
  return out
}

/**
 * Why the settings' secret references cannot work, one line per problem (empty when they can):
 * a reference outside the allowed fields, a malformed name, or any reference at all while
 * TOOLEXEC_SECRET_KEY is unset.
 */
export function secretReferenceProblems(settings: unknown, keyConfigured: boolean): string[] {
  const problems: string[] = []
  let referenced = false
  for (const [path, text] of stringsOf(settings, '', [])) {
    if (secretReferencesIn(text).length === 0) continue
    referenced = true
    if (!ALLOWED_PATHS.some((allowed) => allowed.test(path))) {
      problems.push(
        `${path}: \${secret:…} may stand only in MCP servers' headers, env, oauth.client_secret and oauth.private_key and HTTP hooks' headers`,
      )
      continue
    }
    for (const line of badSecretReferences(text)) problems.push(`${path}: ${line}`)
  }
  if (referenced && !keyConfigured)
    problems.unshift(
      `the settings refer to secrets (\${secret:…}) but TOOLEXEC_SECRET_KEY is not set: set it to 32 random bytes, base64 or hex (\`openssl rand -base64 32\`)`,
    )
  return problems
}
