/**
 * The slice of a pino logger the domain core uses. Structural, so `src/` needs neither pino nor
 * fastify: the service passes `app.log` or `request.log`, tests pass `SILENT_LOGGER` or a spy.
 */
export type Logger = {
  debug(object: object, message?: string): void
  info(object: object, message?: string): void
  warn(object: object, message?: string): void
  error(object: object, message?: string): void
  child(bindings: Record<string, unknown>): Logger
  /** pino's level check, when the logger has one. */
  isLevelEnabled?(level: string): boolean
}

const ignore = () => {}

export const SILENT_LOGGER: Logger = {
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  child: () => SILENT_LOGGER,
}
