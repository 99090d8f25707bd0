import fp from 'fastify-plugin'
import { ApiError } from '../src/errors/api-error.js'
import { ConfigError } from '../src/errors/config-error.js'
import type { PermissionsSettings } from '../src/permissions/permissions-settings-schema.js'
import { describeUnmatchableRules, unmatchableRules } from '../src/permissions/unmatchable-rules.js'
import { assembleToolPool } from '../src/registry/assemble-tool-pool.js'
import { getAllBaseTools } from '../src/registry/get-all-base-tools.js'
import { rebuiltOnChange } from '../src/registry/rebuilt-on-change.js'
import { createToolPool } from '../src/registry/tool-pool.js'
import { toApiToolDefinition } from '../src/tool/to-api-definition.js'
import type { Tools } from '../src/tool/tool.js'
import { DEFAULT_TEXT_EDITOR, DEFAULT_TOOLSETS, TEXT_EDITOR_TYPES, type Toolset } from '../src/tool/toolset.js'
import { dropBashIfUnavailable } from '../src/tools/bash/bash-availability.js'

declare module 'fastify' {
  interface FastifyInstance {
    toolPool: ReturnType<typeof createToolPool> & {
      /** A tool the service has, whatever the permission context (metrics label only these). */
      isKnownTool(name: string): boolean
      /** Throws 400 invalid_permission_rule for session rules that can never match in its pool. */
      checkSessionRules(permissions: Partial<PermissionsSettings> | undefined, toolsets?: readonly Toolset[]): void
    }
  }
}

export type ToolPoolPluginOptions = {
  /** Replaces the built-in tools (default: every built-in this build has). */
  baseTools?: Tools | undefined
  /** Added after the built-ins and MCP tools (tests register controllable tools here). */
  extraTools?: Tools | undefined
}

/**
 * The tool pool per permission context: what runs execute and what GET /v1/tools lists. The
 * built-ins, without Bash when the sandbox rule leaves it out, then the MCP servers' tools.
 */
export const toolPoolPlugin = fp<ToolPoolPluginOptions>(
  async (app, options) => {
    const allBaseTools = options.baseTools ?? getAllBaseTools()
    const baseTools = dropBashIfUnavailable(allBaseTools, app.sandbox)
    const extraTools = options.extraTools ?? []
    const clientTools = app.clientTools
    const editors: readonly (string | undefined)[] = TEXT_EDITOR_TYPES
    // One text editor version, the session's, else the operator's, else the newest (docs/adr/0289).
    const clientToolsWith = (textEditor = app.settings.clientTools?.textEditor ?? DEFAULT_TEXT_EDITOR) =>
      clientTools.filter((tool) => !editors.includes(tool.apiType) || tool.apiType === textEditor)
    // The session's toolsets, else the operator's, else Claude Code's (docs/adr/0140-toolsets.md).
    const toolsFor = (
      toolsets = app.settings.toolsets ?? DEFAULT_TOOLSETS,
      base = baseTools,
      client: Tools = clientToolsWith(),
    ): Tools => [
      ...(toolsets.includes('claude_code') ? base : []),
      ...(toolsets.includes('anthropic_client') ? client : []),
    ]
    const toolPool = createToolPool({
      assemble: ({ permissionContext, toolsets, textEditor }) =>
        assembleToolPool(permissionContext, app.mcpServers.tools(), {
          baseTools: toolsFor(toolsets, baseTools, clientToolsWith(textEditor)),
          simple: app.config.simple,
        }),
      toDefinition: (tool, definitionOptions) => toApiToolDefinition(tool, definitionOptions),
      extraTools,
      // The MCP list is one array until a server's tools change (src/mcp/client/mcp-manager.ts).
      generation: () => app.mcpServers.tools(),
    })
    // Asked for every queued call (metrics labels): a set of names, rebuilt when the MCP list changes.
    const knownNames = rebuiltOnChange(
      () => app.mcpServers.tools(),
      (mcpTools) =>
        new Set(
          [...baseTools, ...clientTools, ...mcpTools, ...extraTools].flatMap((tool) => [
            tool.name,
            ...(tool.aliases ?? []),
          ]),
        ),
    )
    const isKnownTool = (name: string) => knownNames().has(name)
    const mcpServers = Object.keys(app.settings.mcpServers ?? {})
    /**
     * Refuses session rules that can never match in the session's pool (400 invalid_permission_rule):
     * a typo'd deny would otherwise let what it meant to stop run (docs/adr/0287).
     */
    const checkSessionRules = (
      permissions: Partial<PermissionsSettings> | undefined,
      toolsets?: readonly Toolset[],
    ) => {
      // Every tool of its toolsets counts, Bash too where this instance disabled it (no usable
      // sandbox for several tenants): such a rule is no typo, and matches once Bash is back.
      const pool = [
        ...toolsFor(toolsets === undefined ? undefined : [...toolsets], allBaseTools, clientTools),
        ...app.mcpServers.tools(),
        ...extraTools,
      ]
      const problems = unmatchableRules(permissions, pool, mcpServers)
      if (problems.length > 0) throw new ApiError('invalid_permission_rule', describeUnmatchableRules(problems))
    }
    app.decorate('toolPool', { ...toolPool, isKnownTool, checkSessionRules })
    // The operator's rules apply to every session, whatever its toolsets: checked against every tool.
    const problems = unmatchableRules(
      app.settings.permissions,
      [...allBaseTools, ...clientTools, ...app.mcpServers.tools(), ...extraTools],
      mcpServers,
    )
    if (problems.length > 0) throw new ConfigError('TOOLEXEC_SETTINGS', describeUnmatchableRules(problems))
  },
  { name: 'tool-pool', dependencies: ['config', 'settings', 'sandbox', 'mcp-servers', 'client-tools'] },
)
