import { ConfigError } from '../../errors/config-error.js'
import type { Tools } from '../../tool/tool.js'
import { BASH_TOOL_NAME } from './bash-limits.js'
import { BWRAP_COMMAND, detectSandbox } from './sandbox.js'
import type { SandboxMode } from './sandbox-mode.js'

export type BashAvailability = {
  /** What Bash runs in. */
  sandbox: 'bwrap' | 'off'
  /** Why, for the start-up log. */
  reason: string
  /** False with several tenants and no sandbox: Bash could read another tenant's files. */
  enabled: boolean
}

export type BashAvailabilityOptions = {
  mode: SandboxMode
  /** Distinct tenants the service serves (`Config.tenantCount`). */
  tenantCount: number
  /** The bubblewrap binary to probe (tests point it at one that does not exist). */
  command?: string
}

/**
 * Probes the sandbox once, at start, and decides whether Bash is offered at all. An explicit
 * `TOOLEXEC_SANDBOX=bwrap` that cannot work is a configuration error, not a crash.
 */
export function detectBashAvailability(options: BashAvailabilityOptions): BashAvailability {
  let detected: ReturnType<typeof detectSandbox>
  try {
    detected = detectSandbox(options.mode, options.command ?? BWRAP_COMMAND)
  } catch (error) {
    throw new ConfigError('TOOLEXEC_SANDBOX', error instanceof Error ? error.message : String(error))
  }
  return { ...detected, enabled: options.tenantCount <= 1 || detected.sandbox !== 'off' }
}

/** The tools without Bash when it is not available, unchanged otherwise. */
export function dropBashIfUnavailable(tools: Tools, availability: BashAvailability): Tools {
  return availability.enabled ? tools : tools.filter((tool) => tool.name !== BASH_TOOL_NAME)
}
