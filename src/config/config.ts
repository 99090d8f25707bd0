import { isIP } from 'node:net'
import path from 'node:path'
import type { z } from 'zod'
import type { ApiKey } from '../auth/api-key.js'
import { isLoopbackHost } from '../auth/is-loopback-host.js'
import { normalizeOrigin } from '../auth/request-origin-policy.js'
import { ConfigError } from '../errors/config-error.js'
import { defaultConnectionCap, openFilesLimit } from '../net/descriptor-limit.js'
import { parseSecretKey } from '../secrets/secret-key.js'
import { nativeSpawnerMissing } from '../tools/bash/spawner-choice.js'
import { DEFAULT_MAX_CONCURRENCY, EnvSchema } from './config-schema.js'
import { managedAgentsConfigOf } from './managed-agents-config.js'
import { checkUnique, parseApiKeys, readApiKeysFile } from './parse-api-keys.js'
import { parseList } from './parse-list.js'
import { parseSecretAdminTenants } from './parse-secret-admin-tenants.js'
import { secretsFileOutsideTenantDirectories } from './secrets-file-location.js'
import { warmSandboxSettings } from './warm-sandbox-settings.js'

/**
 * The environment turned into the configuration every other module reads; relative paths
 * resolve against `cwd`. Rules a field-by-field schema cannot say throw a ConfigError naming
 * the variable; problems that do not stop the start become `startupWarnings`.
 */
export function createConfigSchema(cwd: string) {
  return EnvSchema.transform((env) => {
    const startupWarnings: string[] = []
    const maxToolUseConcurrency = parseConcurrency(env.CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY, startupWarnings)
    // A webhook nobody can verify would teach receivers to skip the check.
    if (env.TOOLEXEC_ASK_WEBHOOK_URL !== undefined && env.TOOLEXEC_ASK_WEBHOOK_SECRET === undefined) {
      throw new ConfigError(
        'TOOLEXEC_ASK_WEBHOOK_SECRET',
        'must be set (16 characters or more) when TOOLEXEC_ASK_WEBHOOK_URL is: deliveries are signed with it',
      )
    }
    if (env.TOOLEXEC_PERMISSION_TIMEOUT_MS > env.TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS) {
      throw new ConfigError(
        'TOOLEXEC_PERMISSION_TIMEOUT_MS',
        `is ${env.TOOLEXEC_PERMISSION_TIMEOUT_MS} ms, over TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS (${env.TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS} ms)`,
      )
    }
    // Asked for by name, the native spawner must be there: falling back would hide a broken image.
    const nativeMissing = env.TOOLEXEC_SPAWNER === 'native' ? nativeSpawnerMissing() : undefined
    if (nativeMissing !== undefined) throw new ConfigError('TOOLEXEC_SPAWNER', `is native, but ${nativeMissing}`)
    const apiKeys = checkUnique(
      [
        ...parseApiKeys(env.TOOLEXEC_API_KEYS),
        ...readApiKeysFile(env.TOOLEXEC_API_KEYS_FILE && path.resolve(cwd, env.TOOLEXEC_API_KEYS_FILE)),
      ],
      'TOOLEXEC_API_KEYS_FILE',
    )
    if (apiKeys.length === 0) {
      if (!isLoopbackHost(env.HOST)) {
        throw new ConfigError('TOOLEXEC_API_KEYS', `must be set when HOST (${env.HOST}) is not a loopback address`)
      }
      startupWarnings.push('TOOLEXEC_API_KEYS is not set: authentication is off and only loopback clients are accepted')
    }
    const tenants = apiKeys.length === 0 ? ['default'] : [...new Set(apiKeys.map((key) => key.tenant))]
    const managedAgents = managedAgentsConfigOf(env, tenants)
    return {
      host: env.HOST,
      port: env.PORT,
      /** Operator cap on calls executing at once; a request may only lower it. */
      maxToolUseConcurrency,
      simple: env.CLAUDE_CODE_SIMPLE,
      workspace: path.resolve(cwd, env.TOOLEXEC_WORKSPACE),
      blobDir: path.resolve(cwd, env.TOOLEXEC_BLOB_DIR),
      /** Where the memory client tool keeps /memories, per tenant (docs/adr/0143-memory-store.md). */
      memoryDir: path.resolve(cwd, env.TOOLEXEC_MEMORY_DIR),
      ...(env.TOOLEXEC_SETTINGS === undefined ? {} : { settingsPath: path.resolve(cwd, env.TOOLEXEC_SETTINGS) }),
      /** Empty: auth is off, the service accepts loopback clients only, tenant `default`. */
      apiKeys: apiKeys as readonly ApiKey[],
      /** Distinct tenants among the API keys (0 with auth off); the one place they are counted. */
      tenantCount: new Set(apiKeys.map((key) => key.tenant)).size,
      /** Host names accepted besides loopback ones (docs/adr/0100-host-and-origin-checks.md). */
      allowedHosts: parseAllowedHosts(env.TOOLEXEC_ALLOWED_HOSTS),
      /** Origins a browser may send; empty: every request with an Origin is refused. */
      allowedOrigins: parseAllowedOrigins(env.TOOLEXEC_ALLOWED_ORIGINS),
      /** Variables of the service's environment that Bash also gets (docs/adr/0101-bash-environment.md). */
      bashEnvPassthrough: parseBashEnvPassthrough(env.TOOLEXEC_BASH_ENV_PASSTHROUGH),
      logLevel: env.LOG_LEVEL,
      /** Set: every store on this Redis, shared with the other instances (docs/operations.md). */
      ...(env.TOOLEXEC_REDIS_URL === undefined ? {} : { redisUrl: env.TOOLEXEC_REDIS_URL }),
      /** How long a run outlives its instance's last heartbeat before a survivor closes it. */
      instanceLeaseMs: env.TOOLEXEC_INSTANCE_LEASE_MS,
      sandbox: env.TOOLEXEC_SANDBOX,
      /** How the commands share the host with the service (docs/adr/0300-commands-run-at-a-lower-cpu-priority.md). */
      processes: {
        nice: env.TOOLEXEC_PROCESS_NICE,
        /** Unset: the start limit adapts (docs/adr/0506-the-start-limit-adapts-to-the-event-loop.md). */
        maxStarting: env.TOOLEXEC_MAX_STARTING_PROCESSES,
        spawner: env.TOOLEXEC_SPAWNER,
      },
      /** Sandboxes set up ahead of demand (docs/adr/0390-warm-sandboxes.md). */
      warmSandboxes: warmSandboxSettings(env),
      blobTtlMs: env.TOOLEXEC_BLOB_TTL_MS,
      sessionIdleTtlMs: env.TOOLEXEC_SESSION_IDLE_TTL_MS,
      /** How long a finished run, its events and its idempotency key are kept. */
      runTtlMs: env.TOOLEXEC_RUN_TTL_MS,
      maxRetainedRuns: env.TOOLEXEC_MAX_RETAINED_RUNS,
      sweepIntervalMs: env.TOOLEXEC_SWEEP_INTERVAL_MS,
      maxBodyBytes: env.TOOLEXEC_MAX_BODY_BYTES,
      maxBlocksPerRun: env.TOOLEXEC_MAX_BLOCKS_PER_RUN,
      maxInputBytes: env.TOOLEXEC_MAX_INPUT_BYTES,
      maxInputDepth: env.TOOLEXEC_MAX_INPUT_DEPTH,
      /** Rules × characters one permission judgement may compare (docs/permissions.md#how-much-matching-a-call-may-cost). */
      maxRuleMatchWork: env.TOOLEXEC_MAX_RULE_MATCH_WORK,
      /** Longer commands are judged as unparsable shell (docs/permissions.md#how-much-matching-a-call-may-cost). */
      maxParsedCommandChars: env.TOOLEXEC_MAX_PARSED_COMMAND_CHARS,
      maxFrameBytes: env.TOOLEXEC_MAX_FRAME_BYTES,
      shutdownGraceMs: env.TOOLEXEC_SHUTDOWN_GRACE_MS,
      /** WebSocket heartbeat: a client that misses a whole interval's pong is dropped. */
      wsPingIntervalMs: env.TOOLEXEC_WS_PING_INTERVAL_MS,
      permissionTimeoutMs: env.TOOLEXEC_PERMISSION_TIMEOUT_MS,
      maxResultChars: env.TOOLEXEC_MAX_RESULT_CHARS,
      /** Admission caps: past them a run is refused with 503/429 and Retry-After (docs/adr/0120-admission-control.md). */
      admission: {
        maxOpenRuns: env.TOOLEXEC_MAX_OPEN_RUNS,
        maxOpenRunsPerTenant: env.TOOLEXEC_MAX_OPEN_RUNS_PER_TENANT ?? env.TOOLEXEC_MAX_OPEN_RUNS,
        maxCallsInFlight: env.TOOLEXEC_MAX_CALLS_IN_FLIGHT,
        maxCallsInFlightPerTenant: env.TOOLEXEC_MAX_CALLS_IN_FLIGHT_PER_TENANT ?? env.TOOLEXEC_MAX_CALLS_IN_FLIGHT,
        maxWaitingAsks: env.TOOLEXEC_MAX_WAITING_ASKS,
        maxWaitingAsksPerTenant: Math.min(env.TOOLEXEC_MAX_WAITING_ASKS_PER_TENANT, env.TOOLEXEC_MAX_WAITING_ASKS),
      },
      /** Where asks are announced (docs/adr/0246-ask-webhook.md); absent: nowhere. */
      ...(env.TOOLEXEC_ASK_WEBHOOK_URL === undefined
        ? {}
        : {
            askWebhook: {
              url: env.TOOLEXEC_ASK_WEBHOOK_URL,
              secret: env.TOOLEXEC_ASK_WEBHOOK_SECRET!,
              timeoutMs: env.TOOLEXEC_ASK_WEBHOOK_TIMEOUT_MS,
              maxAttempts: env.TOOLEXEC_ASK_WEBHOOK_MAX_ATTEMPTS,
              retryBaseMs: env.TOOLEXEC_ASK_WEBHOOK_RETRY_BASE_MS,
            },
          }),
      /** The service's address as people reach it: the base of the links it sends (ask URLs). */
      ...(env.TOOLEXEC_PUBLIC_URL === undefined ? {} : { publicUrl: env.TOOLEXEC_PUBLIC_URL }),
      /** Claude Managed Agents worker mode (docs/managed-agents.md); absent: off. */
      ...(managedAgents === undefined ? {} : { managedAgents }),
      /** Serve the console at /console (docs/console.md). */
      console: env.TOOLEXEC_CONSOLE,
      /** The audit trail (docs/audit.md, docs/adr/0245-audit-trail.md). */
      audit: {
        ttlMs: env.TOOLEXEC_AUDIT_TTL_MS,
        maxRecords: env.TOOLEXEC_AUDIT_MAX_RECORDS,
        /** Keep each call's input (redacted) besides its digest. */
        inputs: env.TOOLEXEC_AUDIT_INPUTS,
        ...(env.TOOLEXEC_AUDIT_FILE === undefined ? {} : { file: path.resolve(cwd, env.TOOLEXEC_AUDIT_FILE) }),
        fileMaxBytes: env.TOOLEXEC_AUDIT_FILE_MAX_BYTES,
        fileKeep: env.TOOLEXEC_AUDIT_FILE_KEEP,
      },
      /** The longest a request may make an ask wait (`permission_timeout_ms`). */
      maxPermissionTimeoutMs: env.TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS,
      /** Slow event subscribers (docs/adr/0126-slow-subscribers-are-cut-off-by-bytes.md). */
      subscribers: {
        maxBufferBytes: env.TOOLEXEC_MAX_SUBSCRIBER_BUFFER_BYTES,
        maxPerRun: env.TOOLEXEC_MAX_SUBSCRIBERS_PER_RUN,
        maxPerTenant: env.TOOLEXEC_MAX_SUBSCRIBERS_PER_TENANT,
      },
      /** Connection caps, timeouts and the lingering close (docs/security.md#connections). */
      connections: {
        maxTotal: env.TOOLEXEC_MAX_CONNECTIONS ?? defaultConnectionCap(openFilesLimit(), DEFAULT_MAX_CONNECTIONS),
        maxPerPeer: env.TOOLEXEC_MAX_CONNECTIONS_PER_PEER,
        /** Addresses or CIDR ranges whose X-Forwarded-For is believed; exempt from the per-peer cap. */
        trustedProxies: parseTrustedProxies(env.TOOLEXEC_TRUSTED_PROXIES),
        headersTimeoutMs: env.TOOLEXEC_HEADERS_TIMEOUT_MS,
        keepAliveTimeoutMs: env.TOOLEXEC_KEEP_ALIVE_TIMEOUT_MS,
        linger: {
          maxBytes: env.TOOLEXEC_LINGER_MAX_BYTES,
          totalMs: env.TOOLEXEC_LINGER_MS,
          idleMs: LINGER_IDLE_MS,
        },
      },
      /** Caps on open sessions and on one session's rules (docs/adr/0234-session-caps.md). */
      sessionLimits: {
        maxSessions: env.TOOLEXEC_MAX_SESSIONS,
        maxSessionsPerTenant: Math.min(env.TOOLEXEC_MAX_SESSIONS_PER_TENANT, env.TOOLEXEC_MAX_SESSIONS),
        maxRuleBytes: env.TOOLEXEC_MAX_SESSION_RULE_BYTES,
      },
      mcpSessionLimits: {
        maxSessions: env.TOOLEXEC_MAX_MCP_SESSIONS,
        maxSessionsPerTenant: Math.min(env.TOOLEXEC_MAX_MCP_SESSIONS_PER_TENANT, env.TOOLEXEC_MAX_MCP_SESSIONS),
      },
      /** Persistent shells of the bash client tool, on this instance and per tenant (docs/adr/0233). */
      maxShells: env.TOOLEXEC_MAX_SHELLS,
      maxShellsPerTenant: Math.min(env.TOOLEXEC_MAX_SHELLS_PER_TENANT, env.TOOLEXEC_MAX_SHELLS),
      /** The secret store (docs/mcp.md#secrets): its key (absent: no secrets), its file, who manages it. */
      secrets: {
        key: parseSecretKey(env.TOOLEXEC_SECRET_KEY),
        file: secretsFileOutsideTenantDirectories(path.resolve(cwd, env.TOOLEXEC_SECRETS_FILE), {
          TOOLEXEC_WORKSPACE: path.resolve(cwd, env.TOOLEXEC_WORKSPACE),
          TOOLEXEC_BLOB_DIR: path.resolve(cwd, env.TOOLEXEC_BLOB_DIR),
          TOOLEXEC_MEMORY_DIR: path.resolve(cwd, env.TOOLEXEC_MEMORY_DIR),
        }),
        adminTenants: parseSecretAdminTenants(env.TOOLEXEC_SECRETS_ADMIN_TENANTS, apiKeys),
      },
      /** Problems that did not stop the start; logged once the logger exists. */
      startupWarnings: startupWarnings as readonly string[],
    }
  }).readonly()
}

/** The validated configuration; paths are absolute. */
export type Config = z.output<ReturnType<typeof createConfigSchema>>

/** A bad cap is not fatal: it falls back to the default with a warning (docs/operations.md). */
function parseConcurrency(raw: string | undefined, warnings: string[]): number {
  if (raw === undefined) return DEFAULT_MAX_CONCURRENCY
  const value = Number(raw.trim())
  if (/^\d+$/.test(raw.trim()) && Number.isSafeInteger(value) && value > 0) return value
  warnings.push(
    `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=${JSON.stringify(raw)} is not a positive integer: using ${DEFAULT_MAX_CONCURRENCY}`,
  )
  return DEFAULT_MAX_CONCURRENCY
}

const HOST_NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/

function parseAllowedHosts(raw: string | undefined): readonly string[] {
  return parseList(raw).map((name) => {
    const lower = name.toLowerCase()
    if (!HOST_NAME.test(lower)) {
      throw new ConfigError('TOOLEXEC_ALLOWED_HOSTS', `expected comma-separated host names without port, got ${name}`)
    }
    return lower
  })
}

function parseAllowedOrigins(raw: string | undefined): readonly string[] {
  return parseList(raw).map((entry) => {
    const origin = normalizeOrigin(entry)
    if (origin === undefined) {
      throw new ConfigError(
        'TOOLEXEC_ALLOWED_ORIGINS',
        `expected comma-separated origins like https://app.example, got ${entry}`,
      )
    }
    return origin
  })
}

/** The total connection cap where the descriptor limit is unknown (docs/adr/0231-connection-caps.md). */
const DEFAULT_MAX_CONNECTIONS = 16_384
/** A lingering connection that sends nothing for this long is closed (nginx's lingering_timeout). */
const LINGER_IDLE_MS = 5000

function parseTrustedProxies(raw: string | undefined): readonly string[] {
  return parseList(raw).map((entry) => {
    const [address, prefix, ...rest] = entry.split('/')
    const family = isIP(address ?? '')
    const bits = family === 4 ? 32 : 128
    const prefixOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= bits)
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError(
        'TOOLEXEC_TRUSTED_PROXIES',
        `expected comma-separated IP addresses or CIDR ranges like 10.0.0.0/8, got ${entry}`,
      )
    }
    return entry
  })
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

function parseBashEnvPassthrough(raw: string | undefined): readonly string[] {
  return parseList(raw).map((name) => {
    if (!VARIABLE_NAME.test(name)) {
      throw new ConfigError('TOOLEXEC_BASH_ENV_PASSTHROUGH', `expected comma-separated variable names, got ${name}`)
    }
    // The service's own settings (API keys among them) never reach a command, whatever is listed.
    if (name.startsWith('TOOLEXEC_')) {
      throw new ConfigError('TOOLEXEC_BASH_ENV_PASSTHROUGH', `the service's own variables cannot be passed: ${name}`)
    }
    return name
  })
}
