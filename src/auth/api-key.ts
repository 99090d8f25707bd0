/** One accepted bearer key and the tenant it authenticates (parsed from TOOLEXEC_API_KEYS). */
export type ApiKey = { readonly tenant: string; readonly key: string }
