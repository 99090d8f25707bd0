import type { PermissionsSettings } from '../permissions/permissions-settings-schema.js'
import type { ToolPermissionContext } from '../tool/permission-context.js'
import { samePermissionContext, stripOperatorLayer, withOperatorLayer } from './operator-layer.js'

/**
 * A session's context with the operator's layer (`layer`) and without it (`strip`), each built
 * once per permission-context change: contexts are frozen, so the same object always layers (and strips) to the same result, and
 * a run that changed nothing hands back the layered object it was given
 * (docs/adr/0153-per-session-work-cached-per-change.md). Stripping that object gives back the
 * very context it was layered from when their contents match, so that the next run of the
 * session finds its layered context, its tool pool and its parsed rules in their caches
 * (docs/adr/0503-a-session-context-survives-its-run-unchanged.md).
 */
export function createOperatorLayerCache(operator: PermissionsSettings | undefined) {
  const layered = new WeakMap<ToolPermissionContext, ToolPermissionContext>()
  const stripped = new WeakMap<ToolPermissionContext, ToolPermissionContext>()
  const layer = (own: ToolPermissionContext) => {
    let result = layered.get(own)
    if (!result) {
      result = withOperatorLayer(own, operator)
      layered.set(own, result)
      // The way back: the session's own object, if stripping gives what it holds.
      const back = stripOperatorLayer(result)
      stripped.set(result, samePermissionContext(back, own) ? own : back)
    }
    return result
  }
  const strip = (context: ToolPermissionContext) => {
    let result = stripped.get(context)
    if (!result) {
      result = stripOperatorLayer(context)
      stripped.set(context, result)
    }
    return result
  }
  return { layer, strip }
}
