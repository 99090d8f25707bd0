/** Whether `name` is the tool's name or one of its aliases (kept so old transcripts still resolve). */
function toolMatchesName(tool: { name: string; aliases?: readonly string[] }, name: string): boolean {
  return tool.name === name || (tool.aliases?.includes(name) ?? false)
}

/** The lookup stage of a call: the first tool in the pool answering to `name`. */
export function findToolByName<T extends { name: string; aliases?: readonly string[] }>(
  tools: readonly T[],
  name: string,
): T | undefined {
  // A loop, not `find` with a closure over `name`: this runs for every call (docs/adr/0433).
  for (let index = 0; index < tools.length; index++) {
    const tool = tools[index] as T
    if (toolMatchesName(tool, name)) return tool
  }
  return undefined
}
