// The tests run from source: the native spawner (docs/adr/0499-the-native-spawner.md) and the
// lstat-mtimes addon (docs/adr/0585) are compiled once for the whole run, into
// native/toolexec-spawner and native/addon/lstat-mtimes.node (gitignored), unless already up to date.
import { buildAddon, buildSpawner } from '../scripts/build-spawner.js'

export default function setup(): void {
  buildSpawner()
  buildAddon()
}
