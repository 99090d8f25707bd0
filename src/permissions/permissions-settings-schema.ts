import { z } from 'zod'
import { PERMISSION_MODES } from '../tool/permission-context.js'
import { PermissionRuleSyntaxError, parsePermissionRule } from './permission-rule.js'

/** A rule string that parses (`Bash(npm run test:*)`); MCP rules take no content. */
const PermissionRuleStringSchema = z.string().superRefine((text, context) => {
  try {
    const rule = parsePermissionRule(text)
    if (rule.toolName.startsWith('mcp__') && rule.ruleContent !== undefined) {
      context.addIssue({ code: 'custom', message: `MCP rules take no content: write ${JSON.stringify(rule.toolName)}` })
    }
  } catch (error) {
    if (!(error instanceof PermissionRuleSyntaxError)) throw error
    context.addIssue({ code: 'custom', message: error.message })
  }
})

export const PermissionsSettingsSchema = z
  .strictObject({
    allow: z.array(PermissionRuleStringSchema).optional(),
    deny: z.array(PermissionRuleStringSchema).optional(),
    ask: z.array(PermissionRuleStringSchema).optional(),
    /** The mode of sessions that do not ask for one. */
    defaultMode: z.enum(PERMISSION_MODES).optional(),
    /** `"disable"`: no session may use bypassPermissions. */
    disableBypassPermissionsMode: z.literal('disable').optional(),
  })
  .superRefine((permissions, context) => {
    if (permissions.defaultMode === 'bypassPermissions' && permissions.disableBypassPermissionsMode === 'disable') {
      context.addIssue({
        code: 'custom',
        path: ['defaultMode'],
        message: 'cannot be bypassPermissions while disableBypassPermissionsMode is "disable"',
      })
    }
  })
export type PermissionsSettings = z.infer<typeof PermissionsSettingsSchema>
