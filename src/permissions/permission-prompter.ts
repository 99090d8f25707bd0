import type { AskHints } from '../events/ask-hints.js'

/** What the approver is shown: the `permission.requested` event's payload, minus the request id. */
export type PermissionPrompt = {
  toolUseId: string
  tool: string
  input: { [key: string]: unknown }
  message: string
  hints?: AskHints
  /** The session rule an "allow always" answer adds (docs/adr/0242-asks-a-person-can-judge.md). */
  alwaysRule?: string
}

/** An answer given by an MCP client's user, as an input request's response (docs/adr/0353). */
export type AnswerChannel = 'mcp_input_request'

/** How an ask ended. `updatedInput` replaces the call's input (re-validated and re-checked). */
export type PermissionAnswer =
  | { decision: 'allow'; updatedInput?: { [key: string]: unknown }; always?: boolean; by?: string; via?: AnswerChannel }
  | { decision: 'deny'; message?: string; by?: string; via?: AnswerChannel; ended?: 'cancelled' | 'waiting_bound' }
  | { timedOut: true }
  | { noApprover: true }

/**
 * The run layer's side of an ask: it emits `permission.requested` with a request id, waits for
 * a `permission.response` frame or `POST /v1/runs/{id}/permissions/{request_id}` up to the
 * timeout, emits `permission.resolved`, and resolves with the answer. It never throws for a
 * missing answer: it resolves `{ timedOut: true }` or `{ noApprover: true }` instead.
 */
export interface PermissionPrompter {
  request(prompt: PermissionPrompt): Promise<PermissionAnswer>
}
