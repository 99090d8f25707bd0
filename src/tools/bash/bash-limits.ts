export const BASH_TOOL_NAME = 'Bash'
export const BASH_DEFAULT_TIMEOUT_MS = 120_000
export const BASH_MAX_TIMEOUT_MS = 600_000
/** Also the in-memory threshold: past it the output streams to a blob. */
export const BASH_MAX_RESULT_CHARS = 30_000
