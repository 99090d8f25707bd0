/** TOOLEXEC_SANDBOX's values, what Bash runs in (docs/design.md §9); `auto` uses bwrap when it works. */
export const SANDBOX_MODES = ['auto', 'bwrap', 'off'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]
