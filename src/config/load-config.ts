import path from 'node:path'
import { isLoopbackHost } from '../auth/is-loopback-host.js'
import type { Config } from './config.js'
import { ConfigError } from './config-error.js'
import { DEFAULT_MAX_CONCURRENCY, EnvSchema } from './config-schema.js'
import { parseApiKeys } from './parse-api-keys.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * Reads and validates the environment once. A bad value throws a ConfigError naming the
 * variable; the concurrency cap is the one exception (SPEC §6: default with a warning).
 */
export function loadConfig(environment: Environment = process.env, cwd = process.cwd()): Config {
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
  )
  const parsed = EnvSchema.safeParse(present)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const variable = String(issue.path[0] ?? 'environment')
    throw new ConfigError(variable, `${issue.message} (got ${JSON.stringify(present[variable])})`)
  }
  const env = parsed.data
  const warnings: string[] = []
  const maxToolUseConcurrency = parseConcurrency(present.CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY, warnings)
  const apiKeys = parseApiKeys(present.TOOLEXEC_API_KEYS)
  if (apiKeys.length === 0) {
    if (!isLoopbackHost(env.HOST)) {
      throw new ConfigError('TOOLEXEC_API_KEYS', `must be set when HOST (${env.HOST}) is not a loopback address`)
    }
    warnings.push('TOOLEXEC_API_KEYS is not set: authentication is off and only loopback clients are accepted')
  }
  if (env.TOOLEXEC_REDIS_URL !== undefined) {
    warnings.push('TOOLEXEC_REDIS_URL is set but the Redis stores are not built yet: state stays in memory')
  }
  return {
    host: env.HOST,
    port: env.PORT,
    maxToolUseConcurrency,
    simple: env.CLAUDE_CODE_SIMPLE,
    workspace: path.resolve(cwd, env.TOOLEXEC_WORKSPACE),
    blobDir: path.resolve(cwd, env.TOOLEXEC_BLOB_DIR),
    ...(env.TOOLEXEC_SETTINGS === undefined ? {} : { settingsPath: path.resolve(cwd, env.TOOLEXEC_SETTINGS) }),
    apiKeys,
    logLevel: env.LOG_LEVEL,
    ...(env.TOOLEXEC_REDIS_URL === undefined ? {} : { redisUrl: env.TOOLEXEC_REDIS_URL }),
    sandbox: env.TOOLEXEC_SANDBOX,
    blobTtlMs: env.TOOLEXEC_BLOB_TTL_MS,
    sessionIdleTtlMs: env.TOOLEXEC_SESSION_IDLE_TTL_MS,
    runTtlMs: env.TOOLEXEC_RUN_TTL_MS,
    maxRetainedRuns: env.TOOLEXEC_MAX_RETAINED_RUNS,
    sweepIntervalMs: env.TOOLEXEC_SWEEP_INTERVAL_MS,
    maxBodyBytes: env.TOOLEXEC_MAX_BODY_BYTES,
    maxBlocksPerRun: env.TOOLEXEC_MAX_BLOCKS_PER_RUN,
    maxInputBytes: env.TOOLEXEC_MAX_INPUT_BYTES,
    maxFrameBytes: env.TOOLEXEC_MAX_FRAME_BYTES,
    shutdownGraceMs: env.TOOLEXEC_SHUTDOWN_GRACE_MS,
    wsPingIntervalMs: env.TOOLEXEC_WS_PING_INTERVAL_MS,
    permissionTimeoutMs: env.TOOLEXEC_PERMISSION_TIMEOUT_MS,
    maxResultChars: env.TOOLEXEC_MAX_RESULT_CHARS,
    startupWarnings: warnings,
  }
}

function parseConcurrency(raw: string | undefined, warnings: string[]): number {
  if (raw === undefined) return DEFAULT_MAX_CONCURRENCY
  const value = Number(raw.trim())
  if (/^\d+$/.test(raw.trim()) && Number.isSafeInteger(value) && value > 0) return value
  warnings.push(
    `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=${JSON.stringify(raw)} is not a positive integer: using ${DEFAULT_MAX_CONCURRENCY}`,
  )
  return DEFAULT_MAX_CONCURRENCY
}
