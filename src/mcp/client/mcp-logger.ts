/** The slice of a pino logger the MCP client uses; pino's `Logger` satisfies it. */
export type McpLogger = {
  debug(object: object, message?: string): void
  info(object: object, message?: string): void
  warn(object: object, message?: string): void
  error(object: object, message?: string): void
}

const ignore = () => {}

export const SILENT_MCP_LOGGER: McpLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore }
