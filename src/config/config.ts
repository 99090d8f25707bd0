import type { ApiKey } from '../auth/api-key.js'
import type { LOG_LEVELS, SandboxMode } from './config-schema.js'

/** The validated configuration every other module reads; paths are absolute. */
export type Config = {
  readonly host: string
  readonly port: number
  /** Operator cap on calls executing at once; a request may only lower it. */
  readonly maxToolUseConcurrency: number
  readonly simple: boolean
  readonly workspace: string
  readonly blobDir: string
  readonly settingsPath?: string
  /** Empty: auth is off, the service accepts loopback clients only, tenant `default`. */
  readonly apiKeys: readonly ApiKey[]
  readonly logLevel: (typeof LOG_LEVELS)[number]
  readonly redisUrl?: string
  readonly sandbox: SandboxMode
  readonly blobTtlMs: number
  readonly sessionIdleTtlMs: number
  /** How long a finished run, its events and its idempotency key are kept. */
  readonly runTtlMs: number
  readonly maxRetainedRuns: number
  readonly sweepIntervalMs: number
  readonly maxBodyBytes: number
  readonly maxBlocksPerRun: number
  readonly maxInputBytes: number
  readonly maxFrameBytes: number
  readonly shutdownGraceMs: number
  /** WebSocket heartbeat: a client that misses a whole interval's pong is dropped. */
  readonly wsPingIntervalMs: number
  readonly permissionTimeoutMs: number
  readonly maxResultChars: number
  /** Problems that did not stop the start; logged once the logger exists. */
  readonly startupWarnings: readonly string[]
}
