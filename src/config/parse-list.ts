/** A comma-separated list: entries trimmed, empty ones dropped (`a, b,` is `[a, b]`). */
export function parseList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
}
