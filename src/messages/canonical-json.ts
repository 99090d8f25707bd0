/**
 * JSON with object keys sorted at every depth: equal values give equal text, whatever the key order.
 * An object's text is built key by key, without arrays of its entries: every call's audit record
 * takes this text before its answer is written (docs/adr/0588-canonical-json-builds-its-text-key-by-key.md).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    // Sorted by UTF-16 code units, as `<` compares: the default order of sort.
    const keys = Object.keys(record).sort()
    let text = ''
    for (const key of keys) {
      const child = record[key]
      if (child === undefined) continue
      text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(child)}`
    }
    return `{${text}}`
  }
  return JSON.stringify(value) ?? 'null'
}
