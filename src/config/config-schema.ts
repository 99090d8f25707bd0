import { z } from 'zod'
import { DEFAULT_RULE_MATCH_WORK } from '../permissions/rule-match-work.js'
import { DEFAULT_MAX_PARSED_COMMAND_CHARS } from '../shell/parse-limit.js'
import { SANDBOX_MODES } from '../tools/bash/sandbox-mode.js'
import { SPAWNER_CHOICES } from '../tools/bash/spawner-choice.js'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const MIB = 1024 * 1024

const milliseconds = (fallback: number) => z.coerce.number().int().min(1).default(fallback)
const count = (fallback: number) => z.coerce.number().int().min(1).default(fallback)

/** CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY when unset or not a positive integer (load-config.ts). */
export const DEFAULT_MAX_CONCURRENCY = 10

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/**
 * Every environment variable the service reads, with its default. Values arrive as strings;
 * empty strings count as unset (docker-compose passes `VAR=` through). The concurrency cap and
 * the API keys stay strings here: the first falls back with a warning rather than failing, the
 * second is a list with its own parser (both in `createConfigSchema`).
 */
export const EnvSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: z.string().optional(),
  CLAUDE_CODE_SIMPLE: z.stringbool().default(false),
  TOOLEXEC_WORKSPACE: z.string().min(1).default('./.data/workspace'),
  TOOLEXEC_BLOB_DIR: z.string().min(1).default('./.data/blobs'),
  TOOLEXEC_MEMORY_DIR: z.string().min(1).default('./.data/memory'),
  TOOLEXEC_SETTINGS: z.string().min(1).optional(),
  TOOLEXEC_API_KEYS: z.string().optional(),
  TOOLEXEC_API_KEYS_FILE: z.string().min(1).optional(),
  TOOLEXEC_ALLOWED_HOSTS: z.string().optional(),
  TOOLEXEC_ALLOWED_ORIGINS: z.string().optional(),
  TOOLEXEC_BASH_ENV_PASSTHROUGH: z.string().optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  TOOLEXEC_REDIS_URL: z.url().optional(),
  TOOLEXEC_INSTANCE_LEASE_MS: milliseconds(10 * SECOND),
  TOOLEXEC_SANDBOX: z.enum(SANDBOX_MODES).default('auto'),
  // The processes the service starts (docs/adr/0300-commands-run-at-a-lower-cpu-priority.md,
  // docs/adr/0301-process-starts-are-paced.md); the second pins the start limit, unset it adapts
  // between the host's cores and 4 per core (docs/adr/0506, 0507).
  TOOLEXEC_PROCESS_NICE: z.coerce
    .number()
    .int()
    .min(0, "must be 0 (the service's priority) or more: commands never run above the service")
    .max(19, 'must be at most 19, the lowest CPU priority Linux has')
    .default(10),
  TOOLEXEC_MAX_STARTING_PROCESSES: z.coerce.number().int().min(1, 'must be at least 1').optional(),
  // Which process starts them (docs/adr/0501-choosing-the-spawner.md): the native spawner where built.
  TOOLEXEC_SPAWNER: z.enum(SPAWNER_CHOICES).default('auto'),
  // Sandboxes set up ahead of demand (docs/adr/0390-warm-sandboxes.md): per session (0: off),
  // per tenant, per instance, and how long an unused session keeps them.
  TOOLEXEC_WARM_SANDBOXES: z.coerce
    .number()
    .int()
    .min(0, 'must be 0 (off) or more')
    .max(16, 'must be at most 16: each waiting sandbox holds three processes')
    .default(2),
  // Unset: half the instance bound, at least the per-session one (warm-sandbox-settings.ts, docs/adr/0486).
  TOOLEXEC_WARM_SANDBOXES_PER_TENANT: z.coerce.number().int().min(1).optional(),
  TOOLEXEC_WARM_SANDBOXES_MAX: count(32),
  TOOLEXEC_WARM_SANDBOXES_IDLE_MS: z.coerce
    .number()
    .int()
    .min(1000, 'must be at least 1000 (a second)')
    .default(2 * MINUTE),
  TOOLEXEC_BLOB_TTL_MS: milliseconds(24 * HOUR),
  TOOLEXEC_SESSION_IDLE_TTL_MS: milliseconds(HOUR),
  TOOLEXEC_RUN_TTL_MS: milliseconds(HOUR),
  TOOLEXEC_MAX_RETAINED_RUNS: count(10_000),
  TOOLEXEC_SWEEP_INTERVAL_MS: milliseconds(MINUTE),
  TOOLEXEC_MAX_BODY_BYTES: count(10 * MIB),
  TOOLEXEC_MAX_BLOCKS_PER_RUN: count(256),
  TOOLEXEC_MAX_INPUT_BYTES: count(MIB),
  TOOLEXEC_MAX_INPUT_DEPTH: count(64),
  TOOLEXEC_MAX_RULE_MATCH_WORK: count(DEFAULT_RULE_MATCH_WORK),
  TOOLEXEC_MAX_PARSED_COMMAND_CHARS: count(DEFAULT_MAX_PARSED_COMMAND_CHARS),
  TOOLEXEC_MAX_FRAME_BYTES: count(2 * MIB),
  TOOLEXEC_SHUTDOWN_GRACE_MS: milliseconds(10 * SECOND),
  TOOLEXEC_WS_PING_INTERVAL_MS: milliseconds(30 * SECOND),
  TOOLEXEC_PERMISSION_TIMEOUT_MS: milliseconds(MINUTE),
  // Asks that wait for a person (docs/adr/0241-asks-wait-without-holding-a-slot.md).
  TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS: milliseconds(7 * 24 * HOUR),
  TOOLEXEC_MAX_WAITING_ASKS: count(10_000),
  TOOLEXEC_MAX_WAITING_ASKS_PER_TENANT: count(1000),
  // The ask webhook (docs/permissions.md#webhook-for-asks).
  TOOLEXEC_ASK_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
  TOOLEXEC_ASK_WEBHOOK_SECRET: z.string().min(16).optional(),
  TOOLEXEC_ASK_WEBHOOK_TIMEOUT_MS: milliseconds(5 * SECOND),
  TOOLEXEC_ASK_WEBHOOK_MAX_ATTEMPTS: count(6),
  TOOLEXEC_ASK_WEBHOOK_RETRY_BASE_MS: milliseconds(SECOND),
  TOOLEXEC_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  TOOLEXEC_CONSOLE: z.stringbool().default(true),
  // The audit trail (docs/audit.md).
  TOOLEXEC_AUDIT_TTL_MS: milliseconds(30 * 24 * HOUR),
  TOOLEXEC_AUDIT_MAX_RECORDS: count(100_000),
  TOOLEXEC_AUDIT_INPUTS: z.stringbool().default(false),
  TOOLEXEC_AUDIT_FILE: z.string().min(1).optional(),
  TOOLEXEC_AUDIT_FILE_MAX_BYTES: count(64 * MIB),
  TOOLEXEC_AUDIT_FILE_KEEP: count(5),
  TOOLEXEC_MAX_RESULT_CHARS: count(200_000),
  // Admission and subscribers (docs/reliability.md); per-tenant caps default to the instance's.
  TOOLEXEC_MAX_OPEN_RUNS: count(256),
  TOOLEXEC_MAX_OPEN_RUNS_PER_TENANT: z.coerce.number().int().min(1).optional(),
  TOOLEXEC_MAX_CALLS_IN_FLIGHT: count(1024),
  TOOLEXEC_MAX_CALLS_IN_FLIGHT_PER_TENANT: z.coerce.number().int().min(1).optional(),
  TOOLEXEC_MAX_SUBSCRIBER_BUFFER_BYTES: count(4 * MIB),
  TOOLEXEC_MAX_SUBSCRIBERS_PER_RUN: count(16),
  TOOLEXEC_MAX_SUBSCRIBERS_PER_TENANT: count(256),
  // The bash client tool's persistent shells (docs/adr/0233-shell-caps-per-tenant.md).
  TOOLEXEC_MAX_SHELLS: count(256),
  // Sessions, toolexec's and /mcp's (docs/adr/0234-session-caps.md).
  TOOLEXEC_MAX_SESSIONS: count(10_000),
  TOOLEXEC_MAX_SESSIONS_PER_TENANT: count(1000),
  TOOLEXEC_MAX_SESSION_RULE_BYTES: count(64 * 1024),
  TOOLEXEC_MAX_MCP_SESSIONS: count(1000),
  TOOLEXEC_MAX_MCP_SESSIONS_PER_TENANT: count(100),
  TOOLEXEC_MAX_SHELLS_PER_TENANT: count(64),
  // Connections (docs/security.md#connections): caps before any key is checked.
  TOOLEXEC_MAX_CONNECTIONS: z.coerce.number().int().min(1).optional(),
  TOOLEXEC_MAX_CONNECTIONS_PER_PEER: count(256),
  TOOLEXEC_TRUSTED_PROXIES: z.string().optional(),
  TOOLEXEC_HEADERS_TIMEOUT_MS: milliseconds(10 * SECOND),
  TOOLEXEC_KEEP_ALIVE_TIMEOUT_MS: milliseconds(10 * SECOND),
  TOOLEXEC_LINGER_MAX_BYTES: count(64 * MIB),
  TOOLEXEC_LINGER_MS: milliseconds(30 * SECOND),
  // The secret store (docs/mcp.md#secrets, docs/adr/0330-secret-store.md).
  TOOLEXEC_SECRET_KEY: z.string().optional(),
  TOOLEXEC_SECRETS_FILE: z.string().min(1).default('./.data/secrets.json'),
  TOOLEXEC_SECRETS_ADMIN_TENANTS: z.string().optional(),
  // Claude Managed Agents worker mode (docs/managed-agents.md, docs/adr/0400).
  TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT: z.string().min(1).optional(),
  TOOLEXEC_MANAGED_AGENTS_KEY: z.string().min(1).optional(),
  TOOLEXEC_MANAGED_AGENTS_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  TOOLEXEC_MANAGED_AGENTS_TENANT: z.string().min(1).default('default'),
  TOOLEXEC_MANAGED_AGENTS_MAX_SESSIONS: count(64),
  TOOLEXEC_MANAGED_AGENTS_IDLE_MS: milliseconds(MINUTE),
  TOOLEXEC_MANAGED_AGENTS_POLL_INTERVAL_MS: milliseconds(SECOND),
})
