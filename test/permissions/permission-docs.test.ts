// Pins docs/permissions.md against the code: every text is listed, and the example settings load.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSettings } from '../../src/config/settings-schema.js'
import { permissionMessages } from '../../src/permissions/permission-messages.js'

const docs = readFileSync(new URL('../../docs/permissions.md', import.meta.url), 'utf8')

// Each text rendered with the placeholders the docs use; a new text must be added here and there.
const renderings: Record<keyof typeof permissionMessages, string[]> = {
  deniedByRule: [permissionMessages.deniedByRule('NAME')],
  deniedByHook: [permissionMessages.deniedByHook('NAME', 'REASON'), permissionMessages.deniedByHook('NAME')],
  deniedInPlanMode: [permissionMessages.deniedInPlanMode('NAME')],
  deniedDontAsk: [permissionMessages.deniedDontAsk('NAME')],
  deniedNoPrompts: [permissionMessages.deniedNoPrompts('NAME')],
  deniedNoApprover: [permissionMessages.deniedNoApprover('NAME')],
  deniedTimeout: [permissionMessages.deniedTimeout('NAME', 0).replace('0 ms', 'N ms')],
  deniedRuleMatchWork: [
    permissionMessages
      .deniedRuleMatchWork('NAME', 1, 2, 3)
      .replace('(2 characters)', '(C characters)')
      .replace('against 1 ', 'against R ')
      .replace('≤ 3,', '≤ LIMIT,'),
  ],
  deniedWaitingBound: [permissionMessages.deniedWaitingBound('NAME')],
  deniedByApprover: [permissionMessages.deniedByApprover('NAME')],
  deniedPromptFailed: [permissionMessages.deniedPromptFailed('NAME', 'REASON')],
  askByRule: [permissionMessages.askByRule('NAME', 'RULE')],
  askByHook: [permissionMessages.askByHook('NAME', 'REASON'), permissionMessages.askByHook('NAME')],
  askOutsideWorkingDirectories: [permissionMessages.askOutsideWorkingDirectories('NAME', 'PATH')],
  askNoRule: [permissionMessages.askNoRule('NAME')],
}

describe('docs/permissions.md', () => {
  it('keeps the documented text for a deny rule', () => {
    expect(permissionMessages.deniedByRule('Bash')).toBe('Permission to use Bash has been denied.')
  })

  it.each(Object.entries(renderings).flatMap(([key, texts]) => texts.map((text) => [key, text])))(
    'lists %s: %s',
    (_key, text) => {
      expect(docs).toContain(`- \`${text}\``)
    },
  )

  it('has a rendering for every text in the catalogue', () => {
    expect(Object.keys(renderings).sort()).toEqual(Object.keys(permissionMessages).sort())
  })

  it('shows an example settings file that loads', () => {
    const example = /### Example settings\s+(?:<!-- [^>]* -->\n)?```json\n([\s\S]*?)\n```/.exec(docs)?.[1]
    expect(example).toBeDefined()
    const settings = parseSettings(JSON.parse(example as string), 'docs/permissions.md')
    expect(settings.permissions?.deny).toContain('Bash(rm:*)')
  })
})
