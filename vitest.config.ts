import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'console/test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // The native spawner is compiled once per run (docs/adr/0499-the-native-spawner.md).
    globalSetup: ['test/global-setup.ts'],
  },
})
