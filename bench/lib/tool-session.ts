import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { jsonClient } from './serial-latency.js'
import type { ServerProcess } from './server-process.js'

/** The CPU model as /proc/cpuinfo names it. */
export function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

/** A session on `service` whose cwd holds a small tree to search, read and edit. */
export async function benchSession(service: ServerProcess) {
  const sessions = jsonClient(`${service.url}/v1/sessions`)
  const created = JSON.parse(
    await sessions.post(JSON.stringify({ cwd: 'bench', permissions: { allow: ['Bash', 'Edit'] } })),
  ) as { session_id: string; cwd: string }
  sessions.close()
  const { cwd } = created
  await mkdir(path.join(cwd, 'src'), { recursive: true })
  for (let index = 0; index < 40; index += 1) {
    const lines = Array.from({ length: 50 }, (_unused, line) => `export const value${line} = ${index * line} // line`)
    if (index % 10 === 0) lines.push('// the needle is here')
    await writeFile(path.join(cwd, 'src', `file-${index}.ts`), `${lines.join('\n')}\n`)
  }
  await writeFile(path.join(cwd, 'edit-me.txt'), 'first alpha line\nsecond line\n')
  return { id: created.session_id, cwd }
}

/**
 * Whether the answer to a one-call run shows its one result a success, read from the text: the
 * test is exact, since inside a JSON string every `"` is escaped and `"is_error":true` can only be
 * a result's own field. False for anything else (an error, another layout): parse it then.
 */
export function answerShowsSuccess(text: string): boolean {
  return !text.includes('"is_error":true') && text.includes('"results":[{"type":"tool_result","tool_use_id":"toolu_1"')
}

/**
 * A client posting one-call runs in `session`; each answer is checked to be a success, on its
 * text, and parsed only when the text does not show one: the no-op run it is compared with is
 * not parsed, and a parse of a Read's 4.5 KB answer cost this client 12–19 µs against about 1 µs
 * for the test (docs/adr/0566-a-tool-answer-is-checked-without-a-parse.md).
 */
export function runClient(service: ServerProcess, sessionId: string) {
  const client = jsonClient(`${service.url}/v1/runs`)
  const run = async (name: string, input: Record<string, unknown>) => {
    const body = JSON.stringify({
      session_id: sessionId,
      tool_uses: [{ type: 'tool_use', id: 'toolu_1', name, input }],
    })
    const text = await client.post(body)
    if (answerShowsSuccess(text)) return
    const answer = JSON.parse(text) as { results: { is_error?: boolean; content: unknown }[] }
    const result = answer.results[0]
    if (!result || result.is_error) throw new Error(`${name} failed: ${JSON.stringify(result?.content)}`)
  }
  return { run, close: client.close }
}

/**
 * Read of a one-line file through the service, beside the 50-line Read: the difference is what
 * the result's size costs (numbering, the answer carrying it twice, in `results` and
 * `message.content`, the socket, the client's parse), the rest what a Read costs whatever it
 * returns (docs/adr/0469-file-tools-print-their-floor-at-this-design.md).
 */
export async function fileToolsSmallCalls(
  client: ReturnType<typeof runClient>,
  cwd: string,
): Promise<Record<string, () => Promise<void>>> {
  const small = path.join(cwd, 'one-line.txt')
  await writeFile(small, 'export const value = 1\n')
  return { Read: () => client.run('Read', { file_path: small }) }
}
