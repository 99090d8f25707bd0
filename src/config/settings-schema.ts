import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { HooksConfigSchema } from '../hooks/hooks-config-schema.js'
import { PermissionsSettingsSchema } from '../permissions/permissions-settings-schema.js'
import { TEXT_EDITOR_TYPES, TOOLSETS } from '../tool/toolset.js'

/** The operator settings file named by TOOLEXEC_SETTINGS. Unknown keys are errors (typos). */
const SettingsSchema = z.strictObject({
  $schema: z.string().optional(),
  permissions: PermissionsSettingsSchema.optional(),
  hooks: HooksConfigSchema.optional(),
  /** Owned by the MCP client, which validates the entries itself. */
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  /** The tool sets runs use unless their session names others (docs/adr/0140-toolsets.md). */
  toolsets: z.array(z.enum(TOOLSETS)).min(1).max(TOOLSETS.length).optional(),
  /** Options of the Messages API's client tools (docs/adr/0143-memory-store.md). */
  clientTools: z
    .strictObject({
      /** The text editor's `max_characters`: views longer than this are cut. */
      textEditorMaxCharacters: z.number().int().positive().max(10_000_000).optional(),
      /** `session` (default): each session has its own /memories; `tenant`: one per tenant. */
      memoryScope: z.enum(['session', 'tenant']).optional(),
      /** The editor version sessions offer unless they name one (docs/adr/0289). */
      textEditor: z.enum(TEXT_EDITOR_TYPES).optional(),
    })
    .optional(),
})
export type Settings = z.infer<typeof SettingsSchema>

export class SettingsError extends Error {
  override name = 'SettingsError'
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`
    return out === '' ? String(key) : `${out}.${String(key)}`
  }, '')
}

/** Validates an already parsed settings object; the error names each bad field. */
export function parseSettings(value: unknown, origin = 'settings'): Settings {
  const result = SettingsSchema.safeParse(value)
  if (result.success) return result.data
  const lines = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => formatPath([...issue.path, key])) : []
    const where = keys.length > 0 ? keys.join(', ') : formatPath(issue.path) || '(root)'
    return `  - ${where}: ${issue.message}`
  })
  throw new SettingsError(`Invalid settings in ${origin}:\n${lines.join('\n')}`)
}

/**
 * Reads and validates the settings file (TOOLEXEC_SETTINGS) once at start. Every failure —
 * unreadable file, bad JSON, bad field — is a SettingsError whose message names the file and,
 * for bad fields, each field's path (`permissions.deny[2]`, `hooks.PreToolUse[0].matcher`).
 */
export function loadSettings(path: string): Settings {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new SettingsError(`Cannot read settings file ${path}: ${(error as Error).message}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new SettingsError(`Settings file ${path} is not valid JSON: ${(error as Error).message}`)
  }
  return parseSettings(json, path)
}
