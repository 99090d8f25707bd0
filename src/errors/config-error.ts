/** A bad environment value: the message names the variable so an operator can fix it at once. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid environment variable ${variable}: ${detail}`)
  }
}
