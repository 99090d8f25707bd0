// Pins where `${secret:NAME}` may stand in the settings file (docs/adr/0332-secret-references.md):
// MCP servers' headers and env and HTTP hooks' headers, with a valid name, and only with a key.
import { describe, expect, it } from 'vitest'
import { secretReferenceProblems } from '../../src/config/settings-secret-references.js'

/** `${secret:NAME}` as the settings file spells it. */
const ref = (name: string) => `\${secret:${name}}`

const allowed = {
  mcpServers: {
    remote: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: `Bearer ${ref('a.token')}` } },
    local: { command: 'server', env: { TOKEN: ref('b-token'), OTHER: 'plain' } },
  },
  hooks: {
    PreToolUse: [{ hooks: [{ type: 'http', url: 'https://hook.example', headers: { 'x-key': ref('hook_1') } }] }],
  },
}

describe('secret references in the settings', () => {
  it('accepts references in MCP headers and env and HTTP hook headers when a key is set', () => {
    expect(secretReferenceProblems(allowed, true)).toEqual([])
    expect(secretReferenceProblems({ permissions: { allow: ['Bash'] } }, false)).toEqual([])
  })

  it('refuses any reference without TOOLEXEC_SECRET_KEY', () => {
    expect(secretReferenceProblems(allowed, false)).toEqual([
      expect.stringMatching(/^the settings refer to secrets .* but TOOLEXEC_SECRET_KEY is not set/),
    ])
  })

  it('refuses references elsewhere and malformed names, naming the field', () => {
    const settings = {
      mcpServers: {
        s: { command: ref('cmd'), args: ['--token', ref('t')], env: { A: ref('bad name') } },
        h: { type: 'http', url: `https://x.example/?k=${ref('u')}` },
      },
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `echo ${ref('c')}` }] }] },
    }
    const elsewhere = `${ref('…')} may stand only in MCP servers' headers, env, oauth.client_secret and oauth.private_key and HTTP hooks' headers`
    expect(secretReferenceProblems(settings, true)).toEqual([
      `mcpServers.s.command: ${elsewhere}`,
      `mcpServers.s.args[1]: ${elsewhere}`,
      `mcpServers.s.env.A: ${ref('bad name')}: a secret name is 1 to 128 letters, digits, \`_\`, \`-\` or \`.\`, starting with a letter or digit`,
      `mcpServers.h.url: ${elsewhere}`,
      `hooks.PreToolUse[0].hooks[0].command: ${elsewhere}`,
    ])
  })
})
