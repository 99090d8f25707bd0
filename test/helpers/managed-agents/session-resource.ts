// A scripted session as `GET /v1/sessions/{id}` answers it: the fields of BetaManagedAgentsSession a worker
// reads (status, resources, the agent's skills) with empty values for the rest — no skills, no memory stores.
import { timestamp } from './wire.js'

export function sessionResource(session: {
  readonly id: string
  readonly environmentId: string
  readonly status: string
  readonly events: readonly { processed_at: string }[]
}) {
  const now = timestamp()
  return {
    type: 'session' as const,
    id: session.id,
    environment_id: session.environmentId,
    status: session.status,
    title: null,
    metadata: {},
    resources: [],
    vault_ids: [],
    outcome_evaluations: [],
    archived_at: null,
    budget: null,
    created_at: session.events[0]?.processed_at ?? now,
    updated_at: now,
    stats: {},
    usage: {},
    agent: { type: 'agent', id: 'agent_scripted', name: 'scripted', description: null, skills: [], tools: [] },
  }
}
