/**
 * `build(source())`, built again only when `source()` answers with another object: the MCP tool
 * list is one array until a server's tools change, so what is derived from it (the combined
 * list, the known names) is built once per change, not per call
 * (docs/adr/0172-tool-pool-kept-per-context.md).
 */
export function rebuiltOnChange<S, T>(source: () => S, build: (value: S) => T): () => T {
  let built: { from: S; value: T } | undefined
  return () => {
    const current = source()
    if (built === undefined || built.from !== current) built = { from: current, value: build(current) }
    return built.value
  }
}
