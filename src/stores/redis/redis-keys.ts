/**
 * Every key and channel toolexec uses in Redis, in one place (docs/adr/0110-redis-key-layout.md).
 * One Redis (or a primary with replicas), not Redis Cluster: scripts touch keys they compute.
 */
const PREFIX = 'toolexec:'

export const redisKeys = {
  run: (runId: string) => `${PREFIX}run:${runId}`,
  runToolUseIds: (runId: string) => `${PREFIX}run:${runId}:ids`,
  runResults: (runId: string) => `${PREFIX}run:${runId}:results`,
  runBlobs: (runId: string) => `${PREFIX}run:${runId}:blobs`,
  /** Results finished but held behind an earlier block (docs/adr/0238): deleted at completion. */
  runHeld: (runId: string) => `${PREFIX}run:${runId}:held`,
  /** A tenant's runs by creation time, for GET /v1/runs; members whose run is gone are dropped as met. */
  runsOfTenant: (tenant: string) => `${PREFIX}runs:of:${tenant}`,
  /** Answers given while no instance held the run, by request id (docs/adr/0243): the first one stands. */
  runAnswers: (runId: string) => `${PREFIX}run:${runId}:answers`,
  /** A tenant's audit trail: a stream trimmed by time (docs/adr/0245-audit-trail.md). */
  audit: (tenant: string) => `${PREFIX}audit:${tenant}`,
  /** How many records a tenant's audit stream keeps, for its bound (docs/adr/0511-the-audit-bound-counts-records.md). */
  auditHeld: (tenant: string) => `${PREFIX}audit-held:${tenant}`,
  /** Finished runs by finish time, for the TOOLEXEC_MAX_RETAINED_RUNS bound. */
  finishedRuns: `${PREFIX}runs:finished`,
  events: (runId: string) => `${PREFIX}events:${runId}`,
  /** Pub/sub: the seq of each event appended to the run (a nudge; the stream is the truth). */
  eventsChannel: (runId: string) => `${PREFIX}tail:${runId}`,
  session: (tenant: string, sessionId: string) => `${PREFIX}session:${tenant}:${sessionId}`,
  /** Sessions by the time their creation's idle TTL runs out, per tenant and in all: the session caps count them. */
  sessionsOfTenant: (tenant: string) => `${PREFIX}sessions:${tenant}`,
  sessionsAll: `${PREFIX}sessions:all`,
  /** An older-revision MCP session of /mcp (docs/adr/0341-older-mcp-sessions-in-the-stores.md). */
  mcpSession: (mcpSessionId: string) => `${PREFIX}mcp-session:${mcpSessionId}`,
  /** MCP sessions by expiry time, per tenant and in all: the MCP session caps count them. */
  mcpSessionsOfTenant: (tenant: string) => `${PREFIX}mcp-sessions:${tenant}`,
  mcpSessionsAll: `${PREFIX}mcp-sessions:all`,
  idempotency: (tenant: string, key: string) => `${PREFIX}idempotency:${tenant}:${key}`,
  /** Hash run id → tenant of the runs some instance executes; each has a lease key while it lives. */
  running: `${PREFIX}runs:running`,
  lease: (runId: string) => `${PREFIX}lease:${runId}`,
  recovering: (runId: string) => `${PREFIX}recovering:${runId}`,
  /** Control messages for the runs an instance executes (docs/adr/0179-one-control-channel-per-instance.md). */
  controlChannel: (instanceId: string) => `${PREFIX}control:${instanceId}`,
  replyChannel: (instanceId: string) => `${PREFIX}reply:${instanceId}`,
  /** Pub/sub: what every instance is told (a session deleted, docs/adr/0237). */
  announceChannel: `${PREFIX}announce`,
  /** The markers of the shared workspace and blob directory (docs/adr/0113-shared-volume-check.md). */
  volumes: `${PREFIX}volumes`,
  /** The deployment's sealed secrets, one field per name; never expires (docs/adr/0331). */
  secrets: `${PREFIX}secrets`,
  /** Pub/sub: the name of each secret written or deleted, so every instance's failed MCP servers try again. */
  secretsChannel: `${PREFIX}secrets:changed`,
  /** Where one Managed Agents call stands (docs/adr/0402): queued, started or answered. */
  managedAgentsCall: (sessionId: string, toolUseId: string) => `${PREFIX}ma-call:${sessionId}:${toolUseId}`,
} as const
