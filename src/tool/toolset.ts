/**
 * The sets of tools a session may ask for (docs/adr/0140-toolsets.md): Claude Code's built-ins
 * (`Bash`, `Read`, `Edit`, …) and the Messages API's own client tools (`bash`, the text editor,
 * `memory`). A model should see one set, so the second joins the pool only when asked for.
 */
export const TOOLSETS = ['claude_code', 'anthropic_client'] as const
export type Toolset = (typeof TOOLSETS)[number]

export const DEFAULT_TOOLSETS: readonly Toolset[] = ['claude_code']
