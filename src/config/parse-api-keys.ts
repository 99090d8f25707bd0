import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { type ApiKey, KEY_ROLES, type KeyRole, keyDigest } from '../auth/api-key.js'
import { ConfigError } from '../errors/config-error.js'

// Tenant names become directory names under the workspace and blob roots: keep them path-safe.
const TENANT_NAME = /^[A-Za-z0-9_-]{1,64}$/
// Key names appear in events, logs and the audit trail: short and printable.
const KEY_NAME = /^[A-Za-z0-9_.@-]{1,64}$/

const FORMS =
  'expected comma-separated `tenant:key` (an admin key) or `name=tenant:role:key` entries (role runner, approver or admin); tenant and key names of letters, digits, `_` or `-`'

/**
 * Parses TOOLEXEC_API_KEYS (docs/adr/0240-key-roles.md). `tenant:key` is the first form and stays
 * a full-rights key named `tenant-key-N`; `name=tenant:role:key` names the key and gives it a role.
 * A tenant name holds no `=`, so the two forms cannot be confused. Several keys may share a
 * tenant; one key never maps to two entries, and a name is used once.
 */
export function parseApiKeys(raw: string | undefined): ApiKey[] {
  if (raw === undefined || raw.trim() === '') return []
  const keys: ApiKey[] = []
  const legacyCount = new Map<string, number>()
  for (const entry of raw.split(',')) {
    const trimmed = entry.trim()
    if (trimmed === '') continue
    const colon = trimmed.indexOf(':')
    const head = colon === -1 ? '' : trimmed.slice(0, colon)
    const rest = colon === -1 ? '' : trimmed.slice(colon + 1)
    const equals = head.indexOf('=')
    if (equals === -1) {
      checkEntry(TENANT_NAME.test(head) && rest !== '')
      const n = (legacyCount.get(head) ?? 0) + 1
      legacyCount.set(head, n)
      keys.push({ tenant: head, name: `${head}-key-${n}`, role: 'admin', digest: keyDigest(rest) })
      continue
    }
    const name = head.slice(0, equals)
    const tenant = head.slice(equals + 1)
    const roleEnd = rest.indexOf(':')
    const role = roleEnd === -1 ? '' : rest.slice(0, roleEnd)
    const key = roleEnd === -1 ? '' : rest.slice(roleEnd + 1)
    checkEntry(KEY_NAME.test(name) && TENANT_NAME.test(tenant) && key !== '')
    keys.push({ tenant, name, role: roleOf(role, 'TOOLEXEC_API_KEYS', name), digest: keyDigest(key) })
  }
  return checkUnique(keys, 'TOOLEXEC_API_KEYS')
}

function checkEntry(ok: boolean): void {
  if (!ok) throw new ConfigError('TOOLEXEC_API_KEYS', FORMS)
}

function roleOf(role: string, variable: string, name: string): KeyRole {
  if ((KEY_ROLES as readonly string[]).includes(role)) return role as KeyRole
  throw new ConfigError(variable, `key "${name}" has role "${role}"; the roles are ${KEY_ROLES.join(', ')}`)
}

const KeysFileSchema = z.array(
  z
    .object({
      name: z.string().regex(KEY_NAME),
      tenant: z.string().regex(TENANT_NAME),
      role: z.enum(KEY_ROLES),
      key: z.string().min(16).optional(),
      key_sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
    })
    .strict()
    .refine((entry) => (entry.key === undefined) !== (entry.key_sha256 === undefined), {
      message: 'give exactly one of `key` or `key_sha256`',
    }),
)

/**
 * TOOLEXEC_API_KEYS_FILE: a JSON array of `{ name, tenant, role, key | key_sha256 }`. With
 * `key_sha256` the file holds no key a reader of the disk could use.
 */
export function readApiKeysFile(file: string | undefined): ApiKey[] {
  if (file === undefined) return []
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new ConfigError('TOOLEXEC_API_KEYS_FILE', `cannot read ${file}: ${(error as Error).message}`)
  }
  const parsed = KeysFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new ConfigError('TOOLEXEC_API_KEYS_FILE', `${file}: entry ${issue.path.join('.')}: ${issue.message}`)
  }
  return parsed.data.map((entry) => ({
    tenant: entry.tenant,
    name: entry.name,
    role: entry.role,
    digest: entry.key_sha256 ?? keyDigest(entry.key!),
  }))
}

/** One key maps to one entry, one name to one key, across the variable and the file. */
export function checkUnique(keys: ApiKey[], variable: string): ApiKey[] {
  const digests = new Map<string, string>()
  const names = new Set<string>()
  for (const key of keys) {
    const other = digests.get(key.digest)
    if (other !== undefined) throw new ConfigError(variable, `one key is given twice (as "${other}" and "${key.name}")`)
    if (names.has(key.name)) throw new ConfigError(variable, `the key name "${key.name}" is used twice`)
    digests.set(key.digest, key.name)
    names.add(key.name)
  }
  return keys
}
