import type { AnyTool } from '../../tool/tool.js'

/** Name parts: `mcp__github__create_issue` → mcp, github, create, issue; `NotebookEdit` → notebook, edit. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
}

function queryTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean)
}

/**
 * Tools matching a query: `select:A,B` picks exact names (in that order); otherwise each term
 * scores by where it is found (full name > name word > search hint > description), a leading
 * `+term` is required, and the best scores come first.
 */
export async function searchTools(
  tools: readonly AnyTool[],
  query: string,
  maxResults: number,
  describe: (tool: AnyTool) => Promise<string>,
): Promise<AnyTool[]> {
  const trimmed = query.trim()
  if (trimmed.toLowerCase().startsWith('select:')) {
    const names = trimmed
      .slice('select:'.length)
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)
    return names.flatMap((name) => tools.filter((tool) => tool.name === name)).slice(0, maxResults)
  }
  const terms = queryTerms(trimmed)
  const required = terms.filter((term) => term.startsWith('+') && term.length > 1).map((term) => term.slice(1))
  const optional = terms.filter((term) => !term.startsWith('+'))
  const scored: { tool: AnyTool; score: number }[] = []
  for (const tool of tools) {
    const name = tool.name.toLowerCase()
    const words = nameWords(tool.name)
    const hint = (tool.searchHint ?? '').toLowerCase()
    const description = (await describe(tool)).toLowerCase()
    const scoreOf = (term: string) =>
      name === term
        ? 10
        : words.includes(term)
          ? 5
          : name.includes(term)
            ? 3
            : hint.includes(term)
              ? 2
              : description.includes(term)
                ? 1
                : 0
    if (!required.every((term) => scoreOf(term) > 0)) continue
    const score = [...required, ...optional].reduce((sum, term) => sum + scoreOf(term), 0)
    if (score > 0) scored.push({ tool, score })
  }
  scored.sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
  return scored.slice(0, maxResults).map((entry) => entry.tool)
}
