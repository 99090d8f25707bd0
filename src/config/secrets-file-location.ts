import { ConfigError } from '../errors/config-error.js'
import { isInside } from '../paths/is-inside.js'

/**
 * TOOLEXEC_SECRETS_FILE, refused inside a directory tenants' tools read (docs/adr/0330): Read,
 * Grep and Bash would hand the sealed store to any tenant, one step from the values if the key
 * ever leaked.
 */
export function secretsFileOutsideTenantDirectories(file: string, directories: Record<string, string>): string {
  for (const [variable, directory] of Object.entries(directories)) {
    if (isInside(directory, file))
      throw new ConfigError(
        'TOOLEXEC_SECRETS_FILE',
        `${file} is inside ${variable} (${directory}), which tenants' tools read`,
      )
  }
  return file
}
