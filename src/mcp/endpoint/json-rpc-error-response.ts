/** A JSON-RPC error as a whole HTTP answer, for what is refused before any MCP server sees it. */
export function jsonRpcErrorResponse(status: number, message: string, retryAfterSeconds?: number): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message }, id: null },
    { status, headers: retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) } },
  )
}
