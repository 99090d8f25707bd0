/** The slice of a pino logger the run layer uses (fastify's request.log satisfies it). */
export type RunLogger = {
  info(object: object, message?: string): void
  warn(object: object, message?: string): void
  error(object: object, message?: string): void
  child(bindings: Record<string, unknown>): RunLogger
}

export const SILENT_LOGGER: RunLogger = {
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => SILENT_LOGGER,
}
