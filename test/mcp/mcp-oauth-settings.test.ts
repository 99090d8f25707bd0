// Pins the `oauth` block of an HTTP server (docs/adr/0422-oauth-settings.md): what is accepted, and
// every setting that can never work refused at load with a message naming the field and the fix.
import { describe, expect, it } from 'vitest'
import { parseMcpServers } from '../../src/mcp/client/mcp-settings-schema.js'
import { oauthSettingsProblems } from '../../src/mcp/client/oauth/oauth-settings-problems.js'

const ref = (name: string) => `\${secret:${name}}`
const URL = 'https://mcp.example.com/mcp'

function refusal(oauth: unknown, headers?: { [key: string]: string }): string {
  try {
    parseMcpServers({ remote: { type: 'http', url: URL, oauth, ...(headers ? { headers } : {}) } })
  } catch (error) {
    return (error as Error).message
  }
  return 'accepted'
}

describe('the oauth block', () => {
  it('accepts each grant with its credential, and keeps the block through variable expansion', () => {
    const parsed = parseMcpServers({
      a: { type: 'http', url: URL, oauth: { grant: 'client_credentials', client_id: 'c', client_secret: ref('s') } },
      b: { type: 'http', url: URL, oauth: { grant: 'private_key_jwt', client_id: 'c', private_key: ref('k') } },
      c: { type: 'http', url: URL, oauth: { grant: 'authorization_code', scope: 'read' } },
      d: {
        type: 'http',
        url: URL,
        oauth: { grant: 'authorization_code', client_metadata_url: 'https://toolexec.example/oauth/client.json' },
      },
    })
    expect(Object.keys(parsed)).toEqual(['a', 'b', 'c', 'd'])
    expect(parsed.c).toMatchObject({ oauth: { grant: 'authorization_code', scope: 'read' } })
  })

  it('refuses settings that can never work, naming the field', () => {
    expect(refusal({ grant: 'password' })).toContain(
      'mcpServers.remote.oauth.grant: grant must be one of "client_credentials", "private_key_jwt", "authorization_code"',
    )
    expect(refusal({ grant: 'client_credentials', client_id: 'c' })).toContain(
      'mcpServers.remote.oauth.client_secret: grant "client_credentials" needs client_secret',
    )
    expect(refusal({ grant: 'client_credentials', client_secret: ref('s') })).toContain(
      'mcpServers.remote.oauth.client_id: grant "client_credentials" needs the client_id',
    )
    expect(refusal({ grant: 'client_credentials', client_id: 'c', client_secret: 'hunter2' })).toContain(
      `mcpServers.remote.oauth.client_secret: must be a \`${ref('NAME')}\` reference`,
    )
    expect(
      refusal({ grant: 'private_key_jwt', client_id: 'c', private_key: ref('k'), client_secret: ref('s') }),
    ).toContain('a client_secret would never be sent')
    expect(refusal({ grant: 'authorization_code', private_key: ref('k') })).toContain(
      'private_key is used only by grant "private_key_jwt"',
    )
    expect(
      refusal({ grant: 'authorization_code', client_metadata_url: 'http://toolexec.example/client.json' }),
    ).toContain('client_metadata_url must be an https URL')
    expect(refusal({ grant: 'authorization_code', client_metadata_url: 'https://toolexec.example/' })).toContain(
      'client_metadata_url needs a path',
    )
    expect(
      refusal({ grant: 'authorization_code', client_id: 'c', client_metadata_url: 'https://toolexec.example/c.json' }),
    ).toContain('a pre-registered client (client_id) has its client id already')
    expect(
      refusal({
        grant: 'client_credentials',
        client_id: 'c',
        client_secret: ref('s'),
        client_metadata_url: 'https://x.example/c.json',
      }),
    ).toContain('client_metadata_url is used only by grant "authorization_code"')
    expect(refusal({ grant: 'authorization_code' }, { Authorization: 'Bearer x' })).toContain(
      'mcpServers.remote.headers.Authorization: an Authorization header cannot be combined with `oauth`',
    )
  })

  it('refuses an oauth block the deployment cannot serve', () => {
    const servers = { remote: { type: 'http', url: URL, oauth: { grant: 'authorization_code' } } }
    expect(oauthSettingsProblems(servers, { keyConfigured: false, publicUrl: undefined })).toEqual([
      'mcpServers.remote.oauth: OAuth tokens are kept encrypted in the secret store: set TOOLEXEC_SECRET_KEY (`openssl rand -base64 32`)',
      'mcpServers.remote.oauth: grant "authorization_code" sends the browser back to toolexec: set TOOLEXEC_PUBLIC_URL (or oauth.redirect_uri)',
    ])
    expect(oauthSettingsProblems(servers, { keyConfigured: true, publicUrl: 'https://toolexec.example' })).toEqual([])
  })
})
