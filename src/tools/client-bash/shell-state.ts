import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from '../../paths/error-code.js'
import type { PersistentShell } from './persistent-shell.js'

/**
 * What of a session's shell another shell can take over (docs/adr/0270-shell-state-follows-the-session.md):
 * the working directory and the exported variables (`export -p`), and which shell wrote them.
 */
export type SavedShellState =
  | { shellId: string; cwd: string; exports: string }
  /** The session's shell was restarted (or ended): whichever shell runs next starts fresh. */
  | { shellId: string; reset: true }

/** Where a session's saved shell state lives: a directory on the volume every instance shares. */
export type ShellStateDirectoryOf = (tenant: string, sessionId: string) => string

const FILE = 'shell-state.json'

/** What the result says when a shell took over the state of another (ended, or on another instance). */
export const RESTORED_NOTE =
  '[toolexec: this session\u2019s shell was started again (its previous shell ended or runs on another instance of the service); its working directory and exported variables were restored, its background jobs, shell functions, aliases and unexported variables were not]'

const cwdMissingNote = (cwd: string) =>
  `[toolexec: the previous working directory ${cwd} no longer exists; the shell starts in the session's directory]`

export const unsavedNote = (code: string) =>
  `[toolexec: the shell's state could not be saved (${code}): a later command that runs on another instance of the service starts without this command's cd and export]`

export const unreadNote = (code: string) =>
  `[toolexec: the shell's saved state could not be read (${code}): a cd or export made on another instance of the service may be missing]`

const singleQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/** The saved states of sessions' shells, one small file per session, replaced atomically. */
export function createShellStateFiles(directoryOf: ShellStateDirectoryOf) {
  const fileOf = (tenant: string, sessionId: string) => path.join(directoryOf(tenant, sessionId), FILE)
  return {
    async read(tenant: string, sessionId: string): Promise<SavedShellState | undefined> {
      try {
        return JSON.parse(await readFile(fileOf(tenant, sessionId), 'utf8')) as SavedShellState
      } catch (error) {
        if (errorCode(error) === 'ENOENT' || error instanceof SyntaxError) return undefined
        throw error
      }
    },
    async write(tenant: string, sessionId: string, state: SavedShellState): Promise<void> {
      const file = fileOf(tenant, sessionId)
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
      const temporary = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}`
      // Exported variables may hold secrets: readable by the service's user only.
      await writeFile(temporary, JSON.stringify(state), { mode: 0o600 })
      await rename(temporary, file).catch(async (error: unknown) => {
        await rm(temporary, { force: true })
        throw error
      })
    },
  }
}

export type ShellStateFiles = ReturnType<typeof createShellStateFiles>

/** Runs one internal script in the shell and returns what it printed (undefined if it did not finish). */
async function exchange(shell: PersistentShell, script: string, signal: AbortSignal): Promise<string | undefined> {
  const chunks: Buffer[] = []
  const result = await shell.run(script, {
    timeoutMs: 10_000,
    signal,
    output: { write: (chunk: Buffer) => chunks.push(chunk) },
  })
  return result.state === 'finished' ? Buffer.concat(chunks).toString('utf8') : undefined
}

/** The shell's working directory and exported variables now. */
export async function captureShellState(shell: PersistentShell, signal: AbortSignal) {
  const printed = await exchange(shell, `printf '%s\\0' "$PWD"; export -p`, signal)
  if (printed === undefined) return undefined
  const split = printed.indexOf('\0')
  if (split < 0) return undefined
  return { shellId: shell.id, cwd: printed.slice(0, split), exports: printed.slice(split + 1) }
}

/**
 * Gives a fresh shell the saved state: every exported variable it started with is dropped, the
 * saved ones declared (as `export -p` printed them), then the directory entered. Returns the
 * notes for the result.
 */
export async function restoreShellState(
  shell: PersistentShell,
  saved: { cwd: string; exports: string },
  signal: AbortSignal,
): Promise<string[]> {
  const script = [
    '{',
    'for __toolexec_name in $(compgen -e); do unset "$__toolexec_name"; done; unset __toolexec_name',
    saved.exports,
    `cd -- ${singleQuoted(saved.cwd)}`,
    // The group's status is cd's (`export -p` has set $PWD already, so $PWD cannot tell).
    "} >/dev/null 2>&1 || printf 'cwd-missing'",
  ].join('\n')
  const printed = await exchange(shell, script, signal)
  return printed?.includes('cwd-missing') ? [RESTORED_NOTE, cwdMissingNote(saved.cwd)] : [RESTORED_NOTE]
}
