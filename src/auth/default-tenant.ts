/** The tenant name used when authentication is off. */
export const DEFAULT_TENANT = 'default'
