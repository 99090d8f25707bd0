import { z } from 'zod'

/**
 * What toolexec already knows about a call that asks, so the person answering can judge it
 * without reading the tool's source (docs/adr/0242-asks-a-person-can-judge.md).
 */
export const AskHintsSchema = z.object({
  read_only: z.boolean().describe("The tool says this input only reads (the tool's own isReadOnly)"),
  destructive: z.boolean().describe('The tool says this input deletes or overwrites (isDestructive)'),
  outside_working_directories: z
    .array(z.string())
    .optional()
    .describe('Paths the call touches outside the session working directories'),
  network: z
    .boolean()
    .optional()
    .describe('Set for shell commands: whether the sandbox lets this command reach the network'),
  asked_by: z
    .object({
      type: z.enum(['rule', 'hook', 'tool', 'mode', 'default']),
      rule: z.string().optional().describe('The ask rule that matched, as written'),
      reason: z.string().optional().describe("The hook's or the tool's reason"),
    })
    .describe('What made this call ask: an ask rule, a hook, the tool itself, or no rule allowing it'),
})
export type AskHints = z.infer<typeof AskHintsSchema>
