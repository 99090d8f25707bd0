import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import { parse } from 'shell-quote'
import type { HooksConfig } from './hooks-config-schema.js'

/** Words `sh -c` runs without looking at the PATH. */
const SHELL_BUILTINS = new Set([
  '.',
  ':',
  '[',
  'cd',
  'echo',
  'eval',
  'exec',
  'exit',
  'export',
  'false',
  'printf',
  'read',
  'set',
  'test',
  'true',
])
/** Programs whose first argument is the script they run: that script must exist too. */
const INTERPRETERS = new Set(['sh', 'bash', 'dash', 'zsh', 'node', 'python', 'python3', 'perl', 'ruby', 'bun', 'deno'])

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '')
    .split(path.delimiter)
    .some((directory) => directory && isExecutable(path.join(directory, program)))
}

function exists(file: string): boolean {
  try {
    accessSync(file, constants.R_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Why a command hook cannot start, or undefined when it can or cannot be told before a session
 * exists: the program must be a shell builtin, an executable absolute path or on the PATH, and an
 * absolute script handed to an interpreter must exist. Relative paths (resolved in each session's
 * cwd) and words with variables or substitutions are left to run time.
 */
function missingHookCommand(command: string, env: NodeJS.ProcessEnv): string | undefined {
  if (/[$`]/.test(command)) return undefined
  const words = parse(command).filter((word): word is string => typeof word === 'string')
  const start = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word))
  const program = words[start]
  if (program === undefined || SHELL_BUILTINS.has(program)) return undefined
  if (program.includes('/')) {
    if (!path.isAbsolute(program)) return undefined
    if (!isExecutable(program)) return `${program} does not exist or is not executable`
  } else if (!onPath(program, env)) return `${program} is not on the PATH`
  const script = words.slice(start + 1).find((word) => !word.startsWith('-'))
  if (INTERPRETERS.has(path.basename(program)) && script !== undefined && path.isAbsolute(script) && !exists(script))
    return `${script} does not exist`
  return undefined
}

/** One line per command hook of the settings that cannot start, naming where it is configured. */
export function missingHookCommands(hooks: HooksConfig | undefined, env: NodeJS.ProcessEnv): string[] {
  return Object.entries(hooks ?? {}).flatMap(([event, groups]) =>
    (groups ?? []).flatMap((group, groupIndex) =>
      group.hooks.flatMap((hook, hookIndex) => {
        if (hook.type !== 'command') return []
        const problem = missingHookCommand(hook.command, env)
        return problem ? [`hooks.${event}[${groupIndex}].hooks[${hookIndex}]: ${problem}`] : []
      }),
    ),
  )
}
