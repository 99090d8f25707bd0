import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import Anthropic from '@anthropic-ai/sdk'
import fp from 'fastify-plugin'
import { Counter, Gauge } from 'prom-client'
import { secretReferenceOf } from '../src/config/managed-agents-config.js'
import { ConfigError } from '../src/errors/config-error.js'
import {
  createEnvironmentWorker,
  type EnvironmentWorker,
  STALLED_AFTER_MS,
} from '../src/managed-agents/environment-worker.js'
import type { SecretVault } from '../src/secrets/secret-vault.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Claude Managed Agents worker mode (docs/managed-agents.md); undefined when it is off. */
    managedAgentsWorker: EnvironmentWorker | undefined
  }
}

/**
 * Worker mode alongside the HTTP API (docs/adr/0400): with TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT set,
 * this instance polls that environment's work queue once it listens, and serves its sessions
 * through the run manager like any other run. Stopped before the runs drain on shutdown.
 */
export const managedAgentsWorkerPlugin = fp(
  async (app) => {
    app.decorate('managedAgentsWorker', undefined)
    const settings = app.config.managedAgents
    if (settings === undefined) return
    const status = () => app.managedAgentsWorker?.status() ?? { sessions: [], leasesLost: 0 }
    const { registry } = app.metrics
    new Gauge({
      name: 'toolexec_managed_agents_sessions',
      help: 'Claude Managed Agents sessions served on this instance; stalled: waiting on calls of ours that none runs',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const { sessions } = status()
        this.set({ state: 'served' }, sessions.length)
        this.set({ state: 'stalled' }, sessions.filter((session) => session.stalledMs > STALLED_AFTER_MS).length)
      },
    })
    new Counter({
      name: 'toolexec_managed_agents_leases_lost_total',
      help: 'Work item leases lost on this instance (a 412 heartbeat, or none succeeded for a TTL)',
      registers: [registry],
      collect() {
        this.reset()
        this.inc(status().leasesLost)
      },
    })
    app.addHook('onListen', async () => {
      // A `${secret:NAME}` key is read from the secret store when polling starts (docs/managed-agents.md).
      const reference = secretReferenceOf(settings.key)
      const key = reference === undefined ? settings.key : await readKey(app.secrets, reference)
      const client = new Anthropic({
        apiKey: null,
        authToken: key,
        ...(settings.baseUrl === undefined ? {} : { baseURL: settings.baseUrl }),
      })
      const worker = createEnvironmentWorker({
        client,
        environmentId: settings.environmentId,
        tenant: settings.tenant,
        owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
        maxSessions: settings.maxSessions,
        idleMs: settings.idleMs,
        pollIntervalMs: settings.pollIntervalMs,
        journal: app.stores.callJournal,
        runManager: app.runManager,
        sessions: app.sessions,
        markStalled: (runId, since) => app.stores.runs.setStalled(runId, since),
        limits: app.config,
        log: app.log.child({ component: 'managed-agents' }),
      })
      app.managedAgentsWorker = worker
      app.log.info({ environmentId: settings.environmentId, tenant: settings.tenant }, 'Managed Agents worker polling')
      worker.start()
    })
    app.addHook('preClose', async () => app.managedAgentsWorker?.close())
  },
  {
    name: 'managed-agents-worker',
    dependencies: ['config', 'secrets', 'stores', 'metrics', 'run-manager', 'sessions'],
  },
)

async function readKey(secrets: SecretVault, name: string): Promise<string> {
  try {
    return await secrets.resolve(name)
  } catch (error) {
    throw new ConfigError(
      'TOOLEXEC_MANAGED_AGENTS_KEY',
      `names \${secret:${name}}, which cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}
