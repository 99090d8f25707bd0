/** Thrown by the scanner for shell text it cannot represent faithfully; parseShell returns null. */
export class ShellScanError extends Error {
  override name = 'ShellScanError'
}
