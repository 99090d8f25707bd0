/**
 * Examples in the OpenAPI document. Request examples are sent to a listening server by
 * test/e2e/openapi-examples.test.ts (each must get its operation's documented 2xx); response
 * examples are checked against their schemas there.
 */
const RUN_ID = 'run_6f1c2a4e-0d8b-4a51-9a2e-1c3f5b7d9e01'
const SESSION_ID = 'ses_2b7d0c1e-5a94-4f3b-8c6d-7e9f0a1b2c3d'
const bash = { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'echo hello' } } as const
const result = { type: 'tool_result', tool_use_id: 'toolu_01', content: 'hello' } as const

export const CREATE_RUN_EXAMPLES = [
  { tool_uses: [bash] },
  {
    message: {
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [{ type: 'text', text: 'Let me look.' }, bash],
    },
  },
]

export const CREATE_SESSION_EXAMPLES = [
  { cwd: 'projects/api', permission_mode: 'acceptEdits', permissions: { deny: ['Bash(git push:*)'] } },
]

export const PATCH_SESSION_EXAMPLES = [{ permissions: { allow: ['Bash(npm test)'], ask: ['Write'] } }]

export const WRITE_SECRET_EXAMPLES = [{ value: 'ghp_exampleExampleExample' }]

export const CANCEL_RUN_EXAMPLES = [{ mode: 'interrupt' }]

export const PERMISSION_ANSWER_EXAMPLES = [
  { decision: 'allow' },
  { decision: 'allow', always: true },
  { decision: 'deny', message: 'Not on a Friday' },
]

export const RUN_RESULT_EXAMPLES = [
  {
    run_id: RUN_ID,
    status: 'completed',
    session_id: SESSION_ID,
    results: [result],
    message: { role: 'user', content: [result] },
    blobs: [],
  },
]

export const RUN_ACCEPTED_EXAMPLES = [{ run_id: RUN_ID, status: 'running', events_url: `/v1/runs/${RUN_ID}/events` }]

export const RUN_EXAMPLES = [
  {
    run_id: RUN_ID,
    status: 'running',
    session_id: SESSION_ID,
    tool_use_ids: ['toolu_01'],
    results: [],
    permission_requests: [
      {
        request_id: 'perm_01',
        tool_use_id: 'toolu_01',
        tool: 'Bash',
        input: { command: 'echo hello' },
        message: 'Bash needs approval',
        expires_at: '2026-01-05T09:31:00.000Z',
        hints: { read_only: true, destructive: false, network: false, asked_by: { type: 'default' } },
      },
    ],
    resolved_permissions: [],
    blobs: [],
    created_at: '2026-01-05T09:30:00.000Z',
    events_url: `/v1/runs/${RUN_ID}/events`,
  },
]

export const PROBLEM_EXAMPLES = [
  {
    type: 'urn:toolexec:error:invalid_request',
    title: 'Invalid request',
    status: 400,
    detail: 'body.tool_uses.0.input: `input` is required (the tool input goes in `input`, not `arguments`)',
    code: 'invalid_request',
    errors: [
      {
        location: 'body',
        pointer: '/tool_uses/0/input',
        message: '`input` is required (the tool input goes in `input`, not `arguments`)',
      },
    ],
  },
]
