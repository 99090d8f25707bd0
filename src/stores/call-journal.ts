/**
 * Where one Managed Agents call stands, keyed by (session id, tool_use id) (docs/adr/0402):
 * `queued` by an instance (it will run it), `started` (it may have had effects), `answered`
 * (its `user.tool_result` was accepted). Shared through Redis when configured, so an instance
 * that takes over a redelivered work item neither runs a call twice nor forgets one.
 */
export type CallJournalState = { state: 'queued' | 'started'; owner: string } | { state: 'answered' }

export interface CallJournal {
  /**
   * Claims the call for `owner`, atomically. Returns null when the claim is won: the call was not
   * in the journal, or only queued by another owner (that instance is gone or lost the item, and
   * the call never started). Otherwise returns what stands, and nothing changes.
   */
  claim(sessionId: string, toolUseId: string, owner: string): Promise<CallJournalState | null>
  /**
   * The call began executing: from now on its loss means "may have had partial effects". False
   * when another owner has claimed it meanwhile (this owner's claim on the item is lost): nothing
   * changes, and the caller stops its calls.
   */
  started(sessionId: string, toolUseId: string, owner: string): Promise<boolean>
  answered(sessionId: string, toolUseId: string): Promise<void>
}

/** How long an entry lives: far longer than any session's turn, then it goes with no sweep. */
export const CALL_JOURNAL_TTL_MS = 7 * 24 * 60 * 60 * 1000
