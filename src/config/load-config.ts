import { ConfigError } from '../errors/config-error.js'
import { type Config, createConfigSchema } from './config.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * Reads and validates the environment once. A bad value throws a ConfigError naming the
 * variable; the concurrency cap is the one exception (a default with a warning).
 */
export function loadConfig(environment: Environment = process.env, cwd = process.cwd()): Config {
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
  )
  const parsed = createConfigSchema(cwd).safeParse(present)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const variable = String(issue.path[0] ?? 'environment')
    throw new ConfigError(variable, `${issue.message} (got ${JSON.stringify(present[variable])})`)
  }
  return parsed.data
}
