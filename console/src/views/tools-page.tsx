import { api, unwrap } from '../api.js'
import { ErrorNote, Json, PageHeading, Time, usePolling } from './common.js'

export function ToolsPage() {
  const tools = usePolling(async () => unwrap(await api.GET('/v1/tools', {})).tools, 0, [])
  const servers = usePolling(async () => unwrap(await api.GET('/v1/mcp/servers', {})).servers, 5000, [])
  return (
    <main id="main">
      <PageHeading>Tools</PageHeading>
      <h2>MCP servers</h2>
      <ErrorNote error={servers.error} />
      {servers.data?.length === 0 ? (
        <p>No MCP servers are configured.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Type</th>
              <th scope="col">State</th>
              <th scope="col">Tools</th>
              <th scope="col">Connected</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {(servers.data ?? []).map((server) => (
              <tr key={server.name}>
                <td>{server.name}</td>
                <td>{server.type}</td>
                <td>
                  <span class={`badge badge-${server.status}`}>{server.status}</span>
                </td>
                <td>{server.tool_count}</td>
                <td>
                  <Time iso={server.connected_at} />
                </td>
                <td>{server.last_error ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Tool pool ({tools.data?.length ?? '…'})</h2>
      <ErrorNote error={tools.error} />
      <ul class="tools">
        {(tools.data ?? []).map((tool) => (
          <li key={tool.name}>
            <h3>{tool.name}</h3>
            {'description' in tool ? (
              <>
                <p>{tool.description.split('\n')[0]}</p>
                <details>
                  <summary>Input schema</summary>
                  <Json value={tool.input_schema} />
                </details>
              </>
            ) : (
              <p>
                Anthropic client tool <code>{tool.type}</code>
              </p>
            )}
          </li>
        ))}
      </ul>
    </main>
  )
}
