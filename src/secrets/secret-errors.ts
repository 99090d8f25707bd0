/** A reference to a secret nobody stored: a clear state of the server or hook that needs it. */
export class UnknownSecretError extends Error {
  override name = 'UnknownSecretError'
  constructor(readonly secretName: string) {
    super(`secret "${secretName}" is not stored (an admin writes it with PUT /v1/secrets/${secretName})`)
  }
}

/** The store was asked for a value while TOOLEXEC_SECRET_KEY is unset. */
export class SecretsNotConfiguredError extends Error {
  override name = 'SecretsNotConfiguredError'
  constructor() {
    super('the secret store needs TOOLEXEC_SECRET_KEY (32 random bytes, base64 or hex)')
  }
}
