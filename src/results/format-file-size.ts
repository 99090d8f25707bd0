const KILOBYTE = 1024
const MEGABYTE = 1024 * 1024

/** `N bytes` under 1 KB, else KB or MB (1024-based) with one decimal, a trailing `.0` dropped. */
export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) throw new TypeError(`Expected \`bytes\` to be a size, got ${bytes}`)
  if (bytes < KILOBYTE) return `${bytes} bytes`
  const kilobytes = oneDecimal(bytes / KILOBYTE)
  // Choose the unit on the rounded value so 1,048,575 bytes reads 1MB, not 1024KB.
  if (Number(kilobytes) < 1024) return `${kilobytes}KB`
  return `${oneDecimal(bytes / MEGABYTE)}MB`
}

function oneDecimal(value: number): string {
  return value.toFixed(1).replace(/\.0$/, '')
}
