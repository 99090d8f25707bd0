import { ApiError } from '../errors/api-error.js'
import {
  createSessionPermissionContext,
  SessionPermissionError,
} from '../permissions/create-session-permission-context.js'

const SESSION_PERMISSION_CODES = {
  bypass_permissions_disabled: 'permission_mode_forbidden',
  invalid_permission_rule: 'invalid_permission_rule',
  directory_outside_workspace: 'path_outside_workspace',
} as const

/** The permissions module's refusals, as API errors. */
export function sessionPermissionContext(...args: Parameters<typeof createSessionPermissionContext>) {
  try {
    return createSessionPermissionContext(...args)
  } catch (error) {
    if (error instanceof SessionPermissionError) throw new ApiError(SESSION_PERMISSION_CODES[error.code], error.message)
    throw error
  }
}
