import { accessSync, constants } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * Which spawner starts the commands (TOOLEXEC_SPAWNER, docs/adr/0501-choosing-the-spawner.md):
 * `auto` the native one where it is built, else the Node one; `native` refuses to start the
 * service without it; `node` the Node spawner (spawner-main.ts) always.
 */
export const SPAWNER_CHOICES = ['auto', 'native', 'node'] as const
export type SpawnerChoice = (typeof SPAWNER_CHOICES)[number]

/** The spawner in force: native/ (its loop in spawner.c), or spawner-main.ts. */
export type SpawnerKind = 'native' | 'node'

/**
 * The native spawner (native/, its loop in spawner.c, docs/adr/0499-the-native-spawner.md), compiled by
 * scripts/build-spawner.ts beside the sources (the tests) or into dist/ (`npm run build`): the
 * root is the repository from source, dist/ compiled.
 */
export const NATIVE_SPAWNER = fileURLToPath(new URL('../../../native/toolexec-spawner', import.meta.url))

/** Why the native spawner cannot be used here, or undefined when it is built and executable. */
export function nativeSpawnerMissing(binary = NATIVE_SPAWNER): string | undefined {
  try {
    accessSync(binary, constants.X_OK)
    return undefined
  } catch (error) {
    return `the native spawner is not built (${binary}: ${(error as NodeJS.ErrnoException).code}; npm run build compiles it with cc)`
  }
}
