/**
 * The texts of Anthropic's memory tool, as its documentation
 * (https://docs.claude.com/en/docs/agents-and-tools/tool-use/memory-tool) and the SDKs' memory
 * helpers word them. Pinned in test/tools/memory/; docs/adr/0142-client-tool-texts.md.
 */
export const memoryMessages = {
  /** toolexec's own: the store refused (the code only, never the operator's host path). */
  storeFailed: (code: string) =>
    `The memory store is not usable right now (${code}); this is a problem of the service's storage, not of the path.`,
  /** toolexec's own: the file system refused what the path asks (a name too long, a rename into itself, …). */
  pathRefused: (path: string, code: string) => `The memory operation on ${path} was refused (${code}).`,
  outside: (path: string) => `Path must start with /memories, got: ${path}`,
  escapes: (path: string) => `Path ${path} would escape /memories directory`,
  symlink: 'Path would escape /memories directory via symlink',
  doesNotExist: (path: string) => `The path ${path} does not exist. Please provide a valid path.`,
  directoryListing: (path: string, lines: readonly string[]) =>
    `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:\n${lines.join('\n')}`,
  fileView: (path: string, numbered: string) => `Here's the content of ${path} with line numbers:\n${numbered}`,
  tooManyLines: (path: string, lines: number) =>
    `File ${path} has too many lines (${lines}). Maximum is 999,999 lines.`,
  notAFile: (path: string) => `The path ${path} is not a file.`,
  created: (path: string) => `File created successfully at: ${path}`,
  alreadyExists: (path: string) => `Error: File ${path} already exists`,
  noMatch: (oldStr: string, path: string) =>
    `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`,
  multipleMatches: (oldStr: string, lines: readonly number[]) =>
    `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(', ')}. Please ensure it is unique`,
  edited: (snippet: string) =>
    `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snippet}`,
  insertLine: (line: number, lines: number) =>
    `Error: Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines}]`,
  inserted: (path: string) => `The file ${path} has been edited.`,
  deleteRoot: 'Cannot delete the /memories directory itself',
  deleted: (path: string) => `Successfully deleted ${path}`,
  renameRoot: 'Cannot rename the /memories directory itself',
  destinationExists: (path: string) => `Error: The destination ${path} already exists`,
  renamed: (from: string, to: string) => `Successfully renamed ${from} to ${to}`,
  tooLarge: (path: string, bytes: number) => `File ${path} is ${bytes} bytes, more than the memory tool holds.`,
}

/** `4096` → `4K`, `1536` → `1.5K`, `0` → `0B`: the helpers' size column. */
export function formatFileSize(bytes: number): string {
  if (bytes === 0) return '0B'
  const units = ['B', 'K', 'M', 'G']
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length - 1)
  const size = bytes / 1024 ** exponent
  return (size % 1 === 0 ? String(size) : size.toFixed(1)) + units[exponent]
}

/** Line numbers right-aligned in 6 columns, a tab, the line. */
export function numberLines(lines: readonly string[], first: number): string {
  return lines.map((line, index) => `${String(index + first).padStart(6)}\t${line}`).join('\n')
}
