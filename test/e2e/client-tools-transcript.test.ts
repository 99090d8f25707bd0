// Pins, on a listening server, a multi-turn transcript written from the Messages API docs'
// examples of the client tools: a session asks for the `anthropic_client` toolset, GET /v1/tools
// lists the tools in the API's form, and each assistant turn's tool_use blocks (with the `caller`
// field of programmatic tool calling) are forwarded unchanged and answered as the docs show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'

type Result = { type: 'tool_result'; tool_use_id: string; content: string; is_error?: true }

describe('the Messages API client tools over HTTP', () => {
  let server: TestServer
  let sessionId: string
  let turn = 0

  beforeAll(async () => {
    server = await startTestServer({
      lifetime: 'manual',
      settings: { clientTools: { textEditorMaxCharacters: 20_000 } },
    })
  })
  afterAll(() => server.close())

  /** One assistant turn: its message forwarded as is, the user message of results returned. */
  async function forward(blocks: Array<{ name: string; input: Record<string, unknown> }>): Promise<Result[]> {
    turn += 1
    const content = [
      { type: 'text', text: 'Let me do that.' },
      ...blocks.map((block, index) => ({
        type: 'tool_use',
        id: `toolu_${turn}_${index}`,
        name: block.name,
        input: block.input,
        caller: { type: 'direct' },
      })),
    ]
    const response = await fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, message: { role: 'assistant', content, stop_reason: 'tool_use' } }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { message: { role: string; content: Result[] } }
    expect(body.message.role).toBe('user')
    return body.message.content
  }

  it('replays the transcript', async () => {
    const created = await fetch(`${server.baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        toolsets: ['anthropic_client'],
        permissions: { allow: ['bash', 'Edit'] },
      }),
    })
    expect(created.status).toBe(201)
    const session = (await created.json()) as { session_id: string; cwd: string; toolsets: string[] }
    sessionId = session.session_id
    expect(session.toolsets).toEqual(['anthropic_client'])
    const cwd = session.cwd
    const file = `${cwd}/primes.py`

    const tools = (await (await fetch(`${server.baseUrl}/v1/tools?session_id=${sessionId}`)).json()) as {
      tools: unknown[]
    }
    expect(tools.tools).toEqual([
      { type: 'bash_20250124', name: 'bash' },
      { type: 'memory_20250818', name: 'memory' },
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 20_000 },
    ])

    // Turn 1: create a file and look at the directory.
    expect(
      await forward([
        {
          name: 'str_replace_based_edit_tool',
          input: { command: 'create', path: file, file_text: 'def is_prime(n):\n    return n > 1\n' },
        },
        { name: 'str_replace_based_edit_tool', input: { command: 'view', path: cwd } },
      ]),
    ).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1_0', content: `File created successfully at: ${file}` },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1_1',
        content: `Here's the files and directories up to 2 levels deep in ${cwd}, excluding hidden items:\n${cwd}\n${file}\n`,
      },
    ])

    // Turn 2: view it, fix it, add a line on top.
    const [view, replaced, inserted] = await forward([
      { name: 'str_replace_based_edit_tool', input: { command: 'view', path: file } },
      {
        name: 'str_replace_based_edit_tool',
        input: {
          command: 'str_replace',
          path: file,
          old_str: 'return n > 1',
          new_str: 'return n > 1 and all(n % d for d in range(2, n))',
        },
      },
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'insert', path: file, insert_line: 0, insert_text: '# primes' },
      },
    ])
    expect(view?.content).toBe(
      `Here's the result of running \`cat -n\` on ${file}:\n     1\tdef is_prime(n):\n     2\t    return n > 1\n     3\t\n`,
    )
    expect(replaced?.content).toBe(
      `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of ${file}:\n     1\tdef is_prime(n):\n     2\t    return n > 1 and all(n % d for d in range(2, n))\n     3\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.`,
    )
    expect(inserted?.content).toMatch(
      /^The file .* has been edited\. Here's the result of running `cat -n` on a snippet of the edited file:\n {5}1\t# primes\n/,
    )

    // Turn 3: bash, with cd persisting from one call (and one turn) to the next.
    expect(
      await forward([
        { name: 'bash', input: { command: 'mkdir -p build && cd build && export MODE=release' } },
        { name: 'bash', input: { command: 'pwd && echo $MODE' } },
      ]),
    ).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_3_0', content: '(bash completed with no output)' },
      { type: 'tool_result', tool_use_id: 'toolu_3_1', content: `${cwd}/build\nrelease` },
    ])
    expect(
      await forward([{ name: 'bash', input: { command: 'python3 -c "print(1+1)" 2>/dev/null || echo 2; pwd' } }]),
    ).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_4_0', content: `2\n${cwd}/build` }])

    // Turn 5: restart, then the shell is fresh.
    expect(
      await forward([
        { name: 'bash', input: { restart: true } },
        { name: 'bash', input: { command: 'pwd; echo "[$MODE]"' } },
      ]),
    ).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_5_0', content: 'tool has been restarted.' },
      { type: 'tool_result', tool_use_id: 'toolu_5_1', content: `${cwd}\n[]` },
    ])

    // Turn 6: memory, as the memory tool docs walk through it.
    const memory = await forward([
      { name: 'memory', input: { command: 'view', path: '/memories' } },
      {
        name: 'memory',
        input: { command: 'create', path: '/memories/progress.md', file_text: '# Progress\n- primes.py fixed\n' },
      },
      {
        name: 'memory',
        input: { command: 'rename', old_path: '/memories/progress.md', new_path: '/memories/notes/progress.md' },
      },
      { name: 'memory', input: { command: 'view', path: '/memories/notes/progress.md' } },
      { name: 'memory', input: { command: 'delete', path: '/memories/notes' } },
      { name: 'memory', input: { command: 'view', path: '/memories/notes/progress.md' } },
    ])
    expect(memory.map((result) => result.content)).toEqual([
      expect.stringMatching(
        /^Here're the files and directories up to 2 levels deep in \/memories, excluding hidden items and node_modules:\n\S+\t\/memories$/,
      ),
      'File created successfully at: /memories/progress.md',
      'Successfully renamed /memories/progress.md to /memories/notes/progress.md',
      "Here's the content of /memories/notes/progress.md with line numbers:\n     1\t# Progress\n     2\t- primes.py fixed\n     3\t",
      'Successfully deleted /memories/notes',
      'The path /memories/notes/progress.md does not exist. Please provide a valid path.',
    ])
    expect(memory[5]?.is_error).toBe(true)
  })

  it('offers the one text editor version the session names, and refuses the name where it could not apply', async () => {
    const post = (body: unknown) =>
      fetch(`${server.baseUrl}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const created = await post({ toolsets: ['anthropic_client'], text_editor: 'text_editor_20250124' })
    expect(created.status).toBe(201)
    const session = (await created.json()) as { session_id: string; text_editor: string }
    expect(session.text_editor).toBe('text_editor_20250124')
    const read = (await (await fetch(`${server.baseUrl}/v1/sessions/${session.session_id}`)).json()) as {
      text_editor: string
    }
    expect(read.text_editor).toBe('text_editor_20250124')
    const tools = (await (await fetch(`${server.baseUrl}/v1/tools?session_id=${session.session_id}`)).json()) as {
      tools: Array<{ type: string; name: string }>
    }
    expect(tools.tools.filter((tool) => tool.type.startsWith('text_editor_'))).toEqual([
      { type: 'text_editor_20250124', name: 'str_replace_editor' },
    ])
    // The other version is not this session's tool.
    const run = await fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        session_id: session.session_id,
        tool_uses: [
          {
            type: 'tool_use',
            id: 'toolu_e',
            name: 'str_replace_based_edit_tool',
            input: { command: 'view', path: '/' },
          },
        ],
      }),
    })
    const body = (await run.json()) as { results: Result[] }
    expect(body.results[0]?.content).toContain('No such tool available: str_replace_based_edit_tool')

    const refused = await post({ toolsets: ['claude_code'], text_editor: 'text_editor_20250429' })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/add "anthropic_client" to toolsets/)
    expect((await post({ toolsets: ['anthropic_client'], text_editor: 'text_editor_2025' })).status).toBe(400)
  })

  it('keeps the client tools out of a session that did not ask for them', async () => {
    const tools = (await (await fetch(`${server.baseUrl}/v1/tools`)).json()) as { tools: Array<{ name: string }> }
    expect(tools.tools.map((tool) => tool.name)).toContain('Bash')
    expect(tools.tools.map((tool) => tool.name)).not.toContain('bash')
    const response = await fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_uses: [
          {
            type: 'tool_use',
            id: 'toolu_x',
            name: 'bash',
            input: { command: 'pwd' },
            caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' },
          },
        ],
      }),
    })
    const body = (await response.json()) as { results: Result[] }
    expect(body.results[0]?.content).toBe(
      '<tool_use_error>Error: No such tool available: bash. Tool names are case-sensitive: did you mean Bash?</tool_use_error>',
    )
  })
})
