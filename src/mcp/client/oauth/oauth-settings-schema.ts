import { z } from 'zod'
import { secretReferencesIn } from '../../../secrets/secret-references.js'

const OAUTH_GRANTS = ['client_credentials', 'private_key_jwt', 'authorization_code'] as const

/** A value that must come from the secret store: exactly one `${secret:NAME}` and nothing else. */
/** How the messages spell a reference (a constant, so no string holds a `${…}` by accident). */
const REFERENCE = '`$' + '{secret:NAME}`'

const SecretReferenceSchema = z
  .string()
  .refine(
    (value) => secretReferencesIn(value).length === 1 && /^\$\{secret:[^}]*\}$/.test(value),
    `must be a ${REFERENCE} reference: credentials live in the secret store (PUT /v1/secrets/NAME), not in the settings file`,
  )

/**
 * The `oauth` block of an HTTP server (docs/mcp.md#oauth, docs/adr/0422-oauth-settings.md).
 * Endpoints come from discovery (RFC 9728 and RFC 8414); `issuer` pins the authorization server a
 * pre-registered client belongs to, so its credentials go nowhere else.
 */
export const OAuthSettingsSchema = z
  .strictObject({
    grant: z.enum(OAUTH_GRANTS, {
      error: () => `grant must be one of ${OAUTH_GRANTS.map((grant) => `"${grant}"`).join(', ')}`,
    }),
    client_id: z.string().min(1, 'client_id must not be empty').optional(),
    client_secret: SecretReferenceSchema.optional(),
    private_key: SecretReferenceSchema.optional(),
    algorithm: z.string().min(1).optional(),
    scope: z.string().min(1, 'scope must not be empty').optional(),
    issuer: z.url({ protocol: /^https?$/, error: 'issuer must be an http(s) URL' }).optional(),
    redirect_uri: z.url({ protocol: /^https?$/, error: 'redirect_uri must be an http(s) URL' }).optional(),
    client_name: z.string().min(1).optional(),
    client_metadata_url: z
      .url({ protocol: /^https$/, error: 'client_metadata_url must be an https URL' })
      .refine(
        (url) => new URL(url).pathname !== '/',
        'client_metadata_url needs a path: the document is not the site root',
      )
      .optional(),
  })
  .superRefine((value, context) => {
    const refuse = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message })
    if (value.grant !== 'authorization_code' && value.client_id === undefined)
      refuse('client_id', `grant "${value.grant}" needs the client_id the authorization server registered`)
    if (value.grant === 'client_credentials' && value.client_secret === undefined)
      refuse('client_secret', `grant "client_credentials" needs client_secret (a ${REFERENCE} reference)`)
    if (value.grant === 'private_key_jwt' && value.private_key === undefined)
      refuse('private_key', `grant "private_key_jwt" needs private_key (a ${REFERENCE} reference to a PEM key)`)
    if (value.grant !== 'private_key_jwt' && value.private_key !== undefined)
      refuse('private_key', `private_key is used only by grant "private_key_jwt", not "${value.grant}"`)
    if (value.grant !== 'private_key_jwt' && value.algorithm !== undefined)
      refuse('algorithm', `algorithm is used only by grant "private_key_jwt", not "${value.grant}"`)
    if (value.grant === 'private_key_jwt' && value.client_secret !== undefined)
      refuse('client_secret', 'grant "private_key_jwt" signs with private_key; a client_secret would never be sent')
    if (value.grant === 'authorization_code' && value.client_secret !== undefined && value.client_id === undefined)
      refuse('client_secret', 'client_secret belongs to a pre-registered client: set client_id too')
    if (value.grant !== 'authorization_code' && value.client_metadata_url !== undefined)
      refuse(
        'client_metadata_url',
        `client_metadata_url is used only by grant "authorization_code", not "${value.grant}"`,
      )
    if (value.client_metadata_url !== undefined && value.client_id !== undefined)
      refuse('client_metadata_url', 'a pre-registered client (client_id) has its client id already: set one of the two')
    if (value.grant !== 'authorization_code' && value.redirect_uri !== undefined)
      refuse('redirect_uri', `redirect_uri is used only by grant "authorization_code", not "${value.grant}"`)
  })

export type OAuthSettings = z.infer<typeof OAuthSettingsSchema>
