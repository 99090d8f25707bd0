// The spawner process's cases with the Node spawner (spawner-main.ts, TOOLEXEC_SPAWNER=node and the
// fallback where the native one is not built or cannot start: docs/adr/0501-choosing-the-spawner.md).
import { describeSpawner } from './spawner-cases.js'

describeSpawner('node')
