import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { type EnvironmentWorker, STALLED_AFTER_MS } from '../src/managed-agents/environment-worker.js'
import { probeWritable } from '../src/paths/probe-writable.js'
import { commandLauncher } from '../src/tools/bash/launch-command.js'
import type { ProcessesState } from '../src/tools/bash/launcher-state.js'
import { type WarmSandboxesState, warmSandboxes } from '../src/tools/bash/warm-sandboxes.js'
import { jsonResponse } from './responses.js'
import { McpServerStateSchema, toMcpServerStateBody } from './v1/mcp-server-schemas.js'

const StatusSchema = z.object({ status: z.string() })
const ReadinessSchema = StatusSchema.extend({
  reason: z.string().optional().describe('Why the shared store is unavailable (Redis unreachable, volume mismatch)'),
  mcp_servers: z.array(McpServerStateSchema).describe('A failed MCP server does not make the service unready'),
  blob_storage: z
    .object({
      writable: z.boolean().describe('A probe file could be written in TOOLEXEC_BLOB_DIR just now'),
      write_failures: z.number().int().describe('Blob writes refused by the file system since start'),
      last_error: z.string().optional().describe('The last refusal (ENOSPC, EROFS, …) until a write succeeds'),
    })
    .describe('An unwritable blob directory makes the service unready: oversized Bash output would fail'),
  directories: z
    .object({
      workspace: z.object({ writable: z.boolean(), error: z.string().optional() }),
      memory: z.object({ writable: z.boolean(), error: z.string().optional() }),
    })
    .describe(
      'Probe files written just now in TOOLEXEC_WORKSPACE and TOOLEXEC_MEMORY_DIR (the bash shell state and memories); either unwritable makes the service unready. `error` is the code (EACCES, ENOSPC, …)',
    ),
  runs: z
    .object({
      executing: z.number().int().describe('Runs executing on this instance'),
      asks_waiting: z.number().int().describe('Permission asks waiting for an answer here'),
      oldest_ask_age_ms: z.number().int().describe('How long the oldest of them has waited (0 with none)'),
      stuck: z
        .array(z.string())
        .describe('Runs still going more than 5 s past their own deadline (timeout_ms): look into them'),
    })
    .describe('Waiting is not failing: these never make the service unready'),
  audit: z
    .object({
      store: z.object({
        ok: z.boolean(),
        written: z.number().int(),
        dropped: z.number().int(),
        last_error: z.string().optional(),
      }),
      file: z
        .object({
          ok: z.boolean(),
          written: z.number().int(),
          dropped: z.number().int(),
          last_error: z.string().optional(),
        })
        .optional(),
    })
    .describe(
      'The audit trail: records written and dropped since start, per sink; a failing sink never makes the service unready (docs/audit.md)',
    ),
  managed_agents: z
    .object({
      sessions: z.number().int().describe('Claude Managed Agents sessions this instance serves now'),
      stalled: z
        .array(
          z.object({
            session_id: z.string().describe('The Managed Agents session'),
            run_id: z.string().optional().describe('Its current toolexec run, if one is open'),
            stalled_ms: z.number().int().describe('How long it has waited on calls of ours with none running'),
          }),
        )
        .describe('Sessions waiting on this worker with no call of theirs in flight: look into them'),
      leases_lost: z.number().int().describe('Work item leases lost since start (each logged with its item id)'),
    })
    .optional()
    .describe('Worker mode (docs/managed-agents.md), when on; never makes the service unready'),
  bash_containment: z
    .enum(['bwrap', 'pid-namespace', 'process-group'])
    .describe("What ends a Bash command's processes with the call (docs/reliability.md)"),
  processes: z
    .object({
      nice: z.number().int().describe('The CPU priority (niceness, -20…19) of the processes the service starts'),
      service_nice: z.number().int().describe("The service's own niceness"),
      priority: z.string().describe('How that came about, or why the priority could not be lowered'),
      autogroup: z
        .boolean()
        .describe(
          "The kernel's autogroup scheduling is in force (sched_autogroup_enabled=1, root CPU cgroup): each session gets a CPU share of its own and `nice` counts only within it (see `command_groups`, `autogroup_nice`); paced starts still hold",
        ),
      command_groups: z
        .enum(['process-group', 'session'])
        .describe(
          "process-group: each command leads a process group of its own in the spawner's session and shares that session's CPU share (the native spawner, no terminal: docs/adr/0576); session: each command gets a session, so under autogroup a CPU share, of its own",
        ),
      autogroup_nice: z
        .number()
        .int()
        .nullable()
        .describe(
          "Under autogroup, the niceness of the spawner session's CPU share beside the service's (docs/adr/0578); null when autogroup does not apply, the commands start in-process, or the kernel refused",
        ),
      max_starting: z
        .number()
        .int()
        .describe(
          'Process starts under way at once at most, now (TOOLEXEC_MAX_STARTING_PROCESSES; unset, it adapts: `pacing`)',
        ),
      pacing: z
        .enum(['fixed', 'adaptive'])
        .describe(
          "fixed: TOOLEXEC_MAX_STARTING_PROCESSES pins `max_starting`; adaptive: it moves between its floor and ceiling with the service's event-loop delay (docs/adr/0506)",
        ),
      max_starting_floor: z.number().int().describe("The least `max_starting` can be (the host's cores, adaptive)"),
      max_starting_ceiling: z.number().int().describe('The most `max_starting` can be (4 per core, adaptive)'),
      starting: z.number().int().describe('Process starts under way now'),
      spawner: z
        .enum(['native', 'node', 'in-process'])
        .describe(
          'Which process starts them: the native spawner (posix_spawn), the Node one, or the service itself (TOOLEXEC_SPAWNER, docs/adr/0501-choosing-the-spawner.md)',
        ),
      queued: z.number().int().describe('Process starts waiting for their turn now'),
    })
    .describe(
      'How the commands (Bash, Grep) share the host with the service: a lower CPU priority and paced starts (docs/performance.md); never makes the service unready',
    ),
  warm_sandboxes: z
    .object({
      per_session: z
        .number()
        .int()
        .describe('Warm sandboxes a session keeps at most (TOOLEXEC_WARM_SANDBOXES; 0: off)'),
      per_tenant: z.number().int().describe('At most, per tenant (TOOLEXEC_WARM_SANDBOXES_PER_TENANT)'),
      max: z.number().int().describe('At most, on this instance (TOOLEXEC_WARM_SANDBOXES_MAX)'),
      ready: z.number().int().describe('Set up and waiting for a command now'),
      starting: z.number().int().describe('Being set up now'),
      hits: z.number().int().describe('Sandboxed Bash commands that took a warm sandbox, since start'),
      misses: z.number().int().describe('Sandboxed Bash commands that found none and started cold, since start'),
      discarded: z
        .number()
        .int()
        .describe('Warm sandboxes thrown away unused (session deleted or idle, layout changed), since start'),
    })
    .describe(
      'Sandboxes set up ahead of demand, one per command and never reused (docs/performance.md#warm-sandboxes); never makes the service unready',
    ),
})

/** Liveness and readiness probes; readiness fails while the server drains for shutdown. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', {
    schema: {
      tags: ['operations'],
      operationId: 'getHealth',
      summary: 'Liveness',
      security: [],
      response: { 200: jsonResponse('Alive', StatusSchema) },
    },
    handler: async () => ({ status: 'ok' }),
  })

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      operationId: 'getReadiness',
      summary:
        'Readiness: 503 while shutting down, while the shared store (Redis) is unreachable, or while the blob, workspace or memory directory takes no writes',
      security: [],
      response: {
        200: jsonResponse('Ready', ReadinessSchema),
        503: jsonResponse(
          'Draining for shutdown, the shared store is unavailable, or a directory the service writes is not writable',
          ReadinessSchema,
        ),
      },
    },
    handler: async (_request, reply) => {
      const runsHealth = () => {
        const waiting = app.runManager.waiting(Date.now())
        return {
          executing: app.runManager.activeCount,
          asks_waiting: waiting.asks,
          oldest_ask_age_ms: waiting.oldestAskAgeMs,
          stuck: waiting.stuckRuns,
        }
      }
      const draining = app.runManager.shuttingDown
      const { health } = app.blobStore
      const [probe, workspace, memory] = await Promise.all([
        health.probe(),
        probeWritable(app.config.workspace),
        probeWritable(app.config.memoryDir),
      ])
      const lastError = probe.error ?? health.lastError
      const storeProblem = app.coordination?.unavailableReason()
      const body = {
        status: draining
          ? 'shutting_down'
          : storeProblem !== undefined
            ? 'store_unavailable'
            : !probe.writable
              ? 'blob_storage_unwritable'
              : workspace.writable && memory.writable
                ? 'ready'
                : 'directory_unwritable',
        ...(storeProblem === undefined ? {} : { reason: storeProblem }),
        mcp_servers: app.mcpServers.states().map(toMcpServerStateBody),
        blob_storage: {
          writable: probe.writable,
          write_failures: health.failures,
          ...(lastError === undefined ? {} : { last_error: lastError }),
        },
        directories: { workspace, memory },
        runs: runsHealth(),
        audit: auditHealth(app.audit.health()),
        ...managedAgentsHealth(app.managedAgentsWorker),
        bash_containment: app.sandbox.containment,
        processes: processesBody(commandLauncher.processes()),
        warm_sandboxes: warmBody(warmSandboxes.state()),
      }
      return reply.code(body.status === 'ready' ? 200 : 503).send(body)
    },
  })
}

/** Stalled sessions: waiting on us past a grace (a result send in flight is not a stall). */
function managedAgentsHealth(worker: EnvironmentWorker | undefined) {
  if (worker === undefined) return {}
  const { sessions, leasesLost } = worker.status()
  const stalled = sessions
    .filter((session) => session.stalledMs >= STALLED_AFTER_MS)
    .map((session) => ({
      session_id: session.maSessionId,
      ...(session.runId === undefined ? {} : { run_id: session.runId }),
      stalled_ms: session.stalledMs,
    }))
  return { managed_agents: { sessions: sessions.length, stalled, leases_lost: leasesLost } }
}

type SinkHealth = { ok: boolean; written: number; dropped: number; lastError?: string | undefined }
const sinkBody = ({ lastError, ...rest }: SinkHealth) => ({
  ...rest,
  ...(lastError === undefined ? {} : { last_error: lastError }),
})
const auditHealth = (health: { store: SinkHealth; file?: SinkHealth }) => ({
  store: sinkBody(health.store),
  ...(health.file ? { file: sinkBody(health.file) } : {}),
})
const processesBody = (state: ProcessesState) => ({
  nice: state.nice,
  service_nice: state.serviceNice,
  priority: state.reason,
  autogroup: state.autogroup,
  command_groups: state.commandGroups,
  autogroup_nice: state.autogroupNice,
  max_starting: state.maxStarting,
  pacing: state.pacing,
  max_starting_floor: state.floor,
  max_starting_ceiling: state.ceiling,
  starting: state.starting,
  queued: state.queued,
  spawner: state.spawner,
})
const warmBody = (state: WarmSandboxesState) => ({
  per_session: state.perSession,
  per_tenant: state.perTenant,
  max: state.perInstance,
  ready: state.ready,
  starting: state.starting,
  hits: state.hits,
  misses: state.misses,
  discarded: state.discarded,
})
