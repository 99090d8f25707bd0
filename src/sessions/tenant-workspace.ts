import path from 'node:path'

/**
 * Each tenant works in `<workspace>/<tenant>`; with authentication off the single `default`
 * tenant works in the workspace itself (docs/design.md §5).
 */
export function tenantWorkspace(workspace: string, tenant: string, authEnabled: boolean): string {
  return authEnabled ? path.join(workspace, tenant) : workspace
}
