import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import Anthropic from '@anthropic-ai/sdk'
import fp from 'fastify-plugin'
import { Counter, Gauge } from 'prom-client'
import {
  createEnvironmentWorker,
  type EnvironmentWorker,
  STALLED_AFTER_MS,
} from '../src/managed-agents/environment-worker.js'

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
    const settings = app.config.managedAgents
    if (settings === undefined) {
      app.decorate('managedAgentsWorker', undefined)
      return
    }
    const client = new Anthropic({
      apiKey: null,
      authToken: settings.key,
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
      limits: app.config,
      log: app.log.child({ component: 'managed-agents' }),
    })
    app.decorate('managedAgentsWorker', worker)
    const { registry } = app.metrics
    new Gauge({
      name: 'toolexec_managed_agents_sessions',
      help: 'Claude Managed Agents sessions served on this instance; stalled: waiting on calls of ours that none runs',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const { sessions } = worker.status()
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
        this.inc(worker.status().leasesLost)
      },
    })
    app.addHook('onListen', async () => {
      app.log.info({ environmentId: settings.environmentId, tenant: settings.tenant }, 'Managed Agents worker polling')
      worker.start()
    })
    app.addHook('preClose', async () => worker.close())
  },
  { name: 'managed-agents-worker', dependencies: ['config', 'stores', 'metrics', 'run-manager', 'sessions'] },
)
