import { createHash } from 'node:crypto'

/**
 * What a key may do (docs/adr/0240-key-roles.md): a runner starts and reads runs, an approver
 * reads runs and answers their asks, an admin does both. The old `tenant:key` form is an admin.
 */
export const KEY_ROLES = ['runner', 'approver', 'admin'] as const
export type KeyRole = (typeof KEY_ROLES)[number]

/**
 * One accepted bearer key: its tenant, its name (what events and the audit trail show; the key
 * itself never leaves the authenticator) and its role. `digest` is the key's sha256 in hex: a
 * keys file may hold only the digest, so the plaintext key need not sit on the server's disk.
 */
export type ApiKey = { readonly tenant: string; readonly name: string; readonly role: KeyRole; readonly digest: string }

/** How keys are stored and looked up: by their sha256, hex. */
export const keyDigest = (key: string) => createHash('sha256').update(key).digest('hex')
