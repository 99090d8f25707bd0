export const GREP_PROMPT = `A content search tool built on ripgrep (GNU grep where ripgrep is not installed).

- Use Grep for every content search; do not run grep or rg through Bash.
- pattern is a regular expression (e.g. "log.*Error", "function\\s+\\w+"). Literal braces must be escaped: "interface\\{\\}" finds "interface{}".
- Filter files with glob (e.g. "*.js", "**/*.tsx") or type (e.g. "js", "py", "rust").
- output_mode: "files_with_matches" (default) lists matching files, newest first; "content" shows matching lines (with -n line numbers, -A/-B/-C context); "count" shows matches per file.
- Patterns match within one line unless multiline is true.
- head_limit keeps only the first N lines or files; the search is confined to the working directories and skips .git and binary files.
- For open-ended searches that need several rounds, combine Glob and Grep.`
