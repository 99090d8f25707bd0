/**
 * The no-op call of the HTTP benches: the built-in ToolSearch on a pool with no deferred tools
 * (read-only, concurrency-safe, no filesystem work, allowed without an ask). No bench-only tool
 * is compiled into the server (docs/adr/0151-bench-no-op-is-tool-search.md).
 */
export function noopBatch(calls: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    tool_uses: Array.from({ length: calls }, (_unused, index) => ({
      type: 'tool_use',
      id: `toolu_${index}`,
      name: 'ToolSearch',
      input: { query: 'select:Noop' },
    })),
    ...extra,
  })
}
