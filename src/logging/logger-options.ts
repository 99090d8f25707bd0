// Tool inputs can hold secrets: never log them, wherever they appear.
const REDACTED_PATHS = [
  'input',
  '*.input',
  'tool_use.input',
  'tool_uses[*].input',
  '*.tool_uses[*].input',
  'message.content[*].input',
  'updated_input',
  '*.updated_input',
  'req.headers.authorization',
]

/** Where log lines go; tests capture them. */
export type LogStream = { write(line: string): void }

/** Blanks out known secret values wherever they appear in a line (src/secrets/secret-redactor.ts). */
export type LineScrubber = { scrub(line: string): string }

/**
 * The service's pino options: JSON lines at `level`, secrets redacted, and request URLs logged
 * without their `?access_token=` (browsers put the API key there, docs/api.md) or an OAuth callback's `code` and `state`. With a scrubber,
 * each finished line is also cleaned of the secret values it knows, under whatever key they were
 * logged (docs/adr/0334-secret-values-scrubbed-from-logs.md).
 */
export function loggerOptions(level: string, stream?: LogStream, scrubber?: LineScrubber) {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(scrubber ? { hooks: { streamWrite: (line: string) => scrubber.scrub(line) } } : {}),
    serializers: {
      req: (request: { method: string; url: string }) => ({
        method: request.method,
        url: stripAccessToken(request.url),
      }),
    },
    ...(stream ? { stream } : {}),
  }
}

function stripAccessToken(url: string): string {
  // `code` and `state` of the OAuth callback are one-use credentials too (docs/adr/0423-authorization-state.md).
  return url.replace(/([?&](?:access_token|code|state)=)[^&]*/g, '$1[redacted]')
}
