import type { Logger } from './logger.js'

type Level = 'debug' | 'info' | 'warn' | 'error'

/**
 * `parent.child(bindings)`, made only when a line is written at a level the parent has enabled:
 * a run logs little at `warn` and above, and a pino child per run showed in profiles
 * (docs/adr/0154-no-per-run-logger-unless-it-logs.md).
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined
  const write = (level: Level) => (object: object, message?: string) => {
    if (parent.isLevelEnabled && !parent.isLevelEnabled(level)) return
    child ??= parent.child(bindings)
    child[level](object, message)
  }
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => lazyChild(parent, { ...bindings, ...more }),
    ...(parent.isLevelEnabled ? { isLevelEnabled: (level: string) => parent.isLevelEnabled?.(level) ?? true } : {}),
  }
}
