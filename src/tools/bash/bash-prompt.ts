import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_RESULT_CHARS, BASH_MAX_TIMEOUT_MS } from './bash-limits.js'

export const BASH_PROMPT = `Executes a bash command and returns its output (stdout and stderr merged, in the order they were written).

- Every call starts in the session's working directory; \`cd\` does not carry over to the next call. Prefer absolute paths.
- Quote paths that contain spaces: cd "/path/with spaces".
- Prefer the dedicated tools: Read (not cat/head/tail), Glob (not find/ls for file search), Grep (not grep/rg), Edit/Write (not sed/echo redirection). They are faster, confined to the working directories, and need fewer permissions.
- timeout is in milliseconds: default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS}. On timeout the whole process group is killed and the command may have had partial effects.
- A non-zero exit status is reported as an error starting with "Exit code N", followed by the output.
- Output longer than ${BASH_MAX_RESULT_CHARS} characters is saved to a file: you get its path and a preview, and can page through it with Read (offset/limit).
- Background processes (\`cmd &\`) are killed when the command finishes: there is no way to leave a server running.
- The command may run in a sandbox: no network, and the filesystem read-only outside the working directories (with a private /tmp).
- Chain dependent commands with &&; independent read-only commands can be separate Bash calls, which run in parallel.
- Read-only commands (ls, cat, grep, git status/log/diff …, without redirection to files, variables, substitutions or unquoted globs) need no extra permission inside the working directories.
- Give a short description (5–10 words) of what the command does.`
