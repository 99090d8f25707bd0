// The spawner process's cases with the native spawner, the default where it is built
// (docs/adr/0499-the-native-spawner.md); spawner-node.test.ts runs them with the Node one.
import { describeSpawner } from './spawner-cases.js'

describeSpawner('native')
