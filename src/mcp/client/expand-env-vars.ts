import type { McpServerConfig } from './mcp-settings-schema.js'

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

export type Environment = { readonly [key: string]: string | undefined }

/** `${VAR}` and `${VAR:-default}` replaced from `environment`; unset names without a default are collected. */
function expandEnvVars(text: string, environment: Environment, missing: Set<string>): string {
  return text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const value = environment[name]
    if (value !== undefined && value !== '') return value
    if (fallback !== undefined) return fallback
    missing.add(name)
    return ''
  })
}

function expandMap(
  map: { [key: string]: string } | undefined,
  environment: Environment,
  missing: Set<string>,
): { [key: string]: string } | undefined {
  if (!map) return undefined
  return Object.fromEntries(
    Object.entries(map).map(([key, value]) => [key, expandEnvVars(value, environment, missing)]),
  )
}

/**
 * Expands variables in every string a server config carries, so secrets stay in the
 * environment rather than the settings file. `missing` lists the unset names: the caller
 * refuses to start such a server instead of launching it with empty values.
 */
export function expandServerConfig(
  config: McpServerConfig,
  environment: Environment,
): { config: McpServerConfig; missing: string[] } {
  const missing = new Set<string>()
  const expand = (text: string) => expandEnvVars(text, environment, missing)
  // `protocol` is a choice, not text: it is carried over as written.
  const protocol = config.protocol === undefined ? {} : { protocol: config.protocol }
  const expanded: McpServerConfig =
    config.type === 'http'
      ? {
          type: 'http',
          url: expand(config.url),
          headers: expandMap(config.headers, environment, missing),
          ...protocol,
          // Carried as written: its secrets are `${secret:NAME}` references, resolved at each token request.
          ...(config.oauth === undefined ? {} : { oauth: config.oauth }),
        }
      : {
          type: 'stdio',
          command: expand(config.command),
          args: config.args?.map(expand),
          env: expandMap(config.env, environment, missing),
          cwd: config.cwd === undefined ? undefined : expand(config.cwd),
          ...protocol,
        }
  return { config: expanded, missing: [...missing] }
}
