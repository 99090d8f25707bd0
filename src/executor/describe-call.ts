const MAX_SUMMARY_CHARS = 40

/** The part of an input that identifies a call to a person: a command, a path, a pattern. */
function summaryOf(input: unknown): string {
  if (input === null || typeof input !== 'object') return ''
  const record = input as Record<string, unknown>
  for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'query']) {
    if (typeof record[key] === 'string') return record[key] as string
  }
  return ''
}

/** `Bash(npm test…)`: the call named in sibling-cancel texts, its summary cut at 40 characters. */
export function describeCall(name: string, input: unknown): string {
  const summary = summaryOf(input)
  if (summary === '') return name
  const cut = summary.length > MAX_SUMMARY_CHARS ? `${summary.slice(0, MAX_SUMMARY_CHARS)}…` : summary
  return `${name}(${cut})`
}
