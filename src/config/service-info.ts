import packageJson from '../../package.json' with { type: 'json' }

/** Name and version as package.json gives them: OpenAPI `info`, MCP client and server info. */
export const SERVICE_INFO = { name: packageJson.name, version: packageJson.version } as const
