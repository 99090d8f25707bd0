/**
 * Every error code the API can return, in one place. Codes are stable: clients branch on them.
 * docs/api.md lists the same table; test/errors/error-catalogue.test.ts keeps both in step.
 * `status` is the HTTP status; WebSocket error frames carry the code alone.
 */
export const ERROR_CATALOGUE = {
  // Requests that do not fit the schema or the limits.
  invalid_request: { status: 400, title: 'Invalid request' },
  duplicate_tool_use_id: { status: 400, title: 'Duplicate tool_use id' },
  no_tool_uses: { status: 400, title: 'No tool_use blocks' },
  permission_timeout_too_long: { status: 400, title: 'permission_timeout_ms over the server maximum' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  too_many_blocks: { status: 400, title: 'Too many tool_use blocks' },
  input_too_large: { status: 413, title: 'Tool input too large' },
  input_too_deep: { status: 400, title: 'Input nested too deep' },
  body_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  path_outside_workspace: { status: 400, title: 'Path outside the workspace' },
  path_parameter_too_long: { status: 414, title: 'Path parameter too long' },
  invalid_permission_rule: { status: 400, title: 'Invalid permission rule' },
  session_rules_too_large: { status: 400, title: 'Session rules too large' },
  invalid_secret_name: { status: 400, title: 'Invalid secret name' },
  oauth_callback_invalid: { status: 400, title: 'OAuth authorization response refused' },
  // Authentication and authorisation.
  unauthorized: { status: 401, title: 'Missing or unknown API key' },
  loopback_only: { status: 403, title: 'Only loopback clients are accepted' },
  host_forbidden: { status: 403, title: 'Host not allowed' },
  origin_forbidden: { status: 403, title: 'Origin not allowed' },
  permission_mode_forbidden: { status: 403, title: 'Permission mode forbidden by the operator' },
  role_forbidden: { status: 403, title: "The key's role does not allow this" },
  // Things that do not exist (or belong to another tenant).
  route_not_found: { status: 404, title: 'No such route' },
  run_not_found: { status: 404, title: 'Run not found' },
  session_not_found: { status: 404, title: 'Session not found' },
  blob_not_found: { status: 404, title: 'Blob not found' },
  permission_request_not_found: { status: 404, title: 'Permission request not found' },
  secret_not_found: { status: 404, title: 'Secret not found' },
  mcp_server_not_found: { status: 404, title: 'MCP server not found' },
  // Conflicts with the current state.
  idempotency_key_reused: { status: 409, title: 'Idempotency-Key reused with another body' },
  session_busy: { status: 409, title: 'Session has a run in progress' },
  oauth_not_interactive: { status: 409, title: 'MCP server needs no browser authorization' },
  websocket_required: { status: 426, title: 'WebSocket upgrade required' },
  // Load: refused at once with Retry-After, never queued (docs/adr/0120-admission-control.md).
  tenant_over_capacity: { status: 429, title: 'Tenant over its share of the server' },
  too_many_subscribers: { status: 429, title: 'Too many event subscribers' },
  too_many_connections: { status: 429, title: 'Too many connections from one client' },
  too_many_sessions: { status: 429, title: 'Too many sessions open' },
  // WebSocket frames (sent as `{type: "error", code, message}`; the socket stays open).
  invalid_frame: { status: 400, title: 'Invalid frame' },
  frame_too_large: { status: 413, title: 'Frame too large' },
  stream_not_started: { status: 409, title: 'Send run.start first' },
  stream_already_started: { status: 409, title: 'run.start was already sent' },
  input_ended: { status: 409, title: 'Input already ended' },
  // The server itself.
  shutting_down: { status: 503, title: 'Server shutting down' },
  server_at_capacity: { status: 503, title: 'Server at capacity' },
  store_unavailable: { status: 503, title: 'Shared store unavailable' },
  console_not_built: { status: 503, title: 'Console not built' },
  secrets_not_configured: { status: 503, title: 'Secret store not configured' },
  internal_error: { status: 500, title: 'Internal server error' },
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof ERROR_CATALOGUE

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[]
