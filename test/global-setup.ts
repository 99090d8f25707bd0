// The tests run from source: the native spawner (docs/adr/0499-the-native-spawner.md) is compiled
// once for the whole run, into native/toolexec-spawner (gitignored), unless already up to date.
import { buildSpawner } from '../scripts/build-spawner.js'

export default function setup(): void {
  buildSpawner()
}
