/**
 * The texts of Anthropic's text editor tool, as its documentation and reference implementation
 * word them (https://docs.claude.com/en/docs/agents-and-tools/tool-use/text-editor-tool; the
 * reference is `tools/edit.py` of anthropic-quickstarts' computer-use-demo). Facts taken, code
 * written here; each text is pinned in test/tools/text-editor/. docs/adr/0142-client-tool-texts.md.
 */

/** How many lines around an edit the success message shows. */
export const SNIPPET_LINES = 4

/** Python's `str(list)`: `[1, 2]`, as the reference prints line lists. */
const pythonList = (values: readonly number[]) => `[${values.join(', ')}]`

const TRUNCATED_NOTE =
  '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>'

/** `cat -n` of some text: the line number right-aligned in 6 columns, a tab, the line. */
export function catN(content: string, descriptor: string, firstLine = 1): string {
  const numbered = content
    .split('\n')
    .map((line, index) => `${String(index + firstLine).padStart(6)}\t${line}`)
    .join('\n')
  return `Here's the result of running \`cat -n\` on ${descriptor}:\n${numbered}\n`
}

export const editorMessages = {
  notAbsolute: (path: string, suggestion: string) =>
    `The path ${path} is not an absolute path, it should start with \`/\`. Maybe you meant ${suggestion}?`,
  doesNotExist: (path: string) => `The path ${path} does not exist. Please provide a valid path.`,
  alreadyExists: (path: string) => `File already exists at: ${path}. Cannot overwrite files using command \`create\`.`,
  directoryNotViewed: (path: string) =>
    `The path ${path} is a directory and only the \`view\` command can be used on directories`,
  required: (parameter: string, command: string) => `Parameter \`${parameter}\` is required for command: ${command}`,
  unrecognized: (command: string, tool: string, commands: readonly string[]) =>
    `Unrecognized command ${command}. The allowed commands for the ${tool} tool are: ${commands.join(', ')}`,
  viewRangeOnDirectory: 'The `view_range` parameter is not allowed when `path` points to a directory.',
  viewRangeShape: 'Invalid `view_range`. It should be a list of two integers.',
  viewRangeFirst: (range: readonly number[], first: number, lines: number) =>
    `Invalid \`view_range\`: ${pythonList(range)}. Its first element \`${first}\` should be within the range of lines of the file: ${pythonList([1, lines])}`,
  viewRangeSecondTooLarge: (range: readonly number[], second: number, lines: number) =>
    `Invalid \`view_range\`: ${pythonList(range)}. Its second element \`${second}\` should be smaller than the number of lines in the file: \`${lines}\``,
  viewRangeSecondBeforeFirst: (range: readonly number[], second: number, first: number) =>
    `Invalid \`view_range\`: ${pythonList(range)}. Its second element \`${second}\` should be larger or equal than its first \`${first}\``,
  directoryListing: (path: string, listing: string) =>
    `Here's the files and directories up to 2 levels deep in ${path}, excluding hidden items:\n${listing}\n`,
  noMatch: (oldStr: string, path: string) =>
    `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`,
  multipleMatches: (oldStr: string, lines: readonly number[]) =>
    `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines ${pythonList(lines)}. Please ensure it is unique`,
  emptyOldStr: (path: string) =>
    `No replacement was performed: old_str is empty. Give the exact text to replace in ${path}.`,
  edited: (path: string, snippet: string) =>
    `The file ${path} has been edited. ${snippet}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
  inserted: (path: string, snippet: string) =>
    `The file ${path} has been edited. ${snippet}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
  insertLine: (line: number, lines: number) =>
    `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: ${pythonList([0, lines])}`,
  created: (path: string) => `File created successfully at: ${path}`,
  noHistory: (path: string) => `No edit history found for ${path}.`,
  undone: (path: string, content: string) => `Last edit to ${path} undone successfully. ${catN(content, path)}`,
  // toolexec's own read-before-edit safety (docs/adr/0144-client-tool-permissions.md): no reference text exists.
  notViewed: (path: string) =>
    `The file ${path} has not been viewed in this session. View it first (command \`view\`), then retry.`,
  changedSinceView: (path: string) =>
    `The file ${path} was modified since it was last viewed (by the user, a command or another tool). View it again, then retry.`,
}

/** The reference's `maybe_truncate`: the start of the text and the note when it is longer. */
export function clip(content: string, maxCharacters: number | undefined): string {
  if (maxCharacters === undefined || content.length <= maxCharacters) return content
  return content.slice(0, maxCharacters) + TRUNCATED_NOTE
}
