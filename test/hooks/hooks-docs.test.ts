// Pins docs/hooks.md: its configuration example is a valid settings file with the hooks it shows.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSettings } from '../../src/config/settings-schema.js'

const docs = readFileSync(new URL('../../docs/hooks.md', import.meta.url), 'utf8')

describe('docs/hooks.md', () => {
  it('shows a configuration that loads', () => {
    const example = /## Configuration\s+(?:<!-- [^>]* -->\n)?```json\n([\s\S]*?)\n```/.exec(docs)?.[1]
    expect(example).toBeDefined()
    const settings = parseSettings(JSON.parse(example as string), 'docs/hooks.md')
    expect(settings.hooks?.PreToolUse?.map((group) => group.matcher)).toEqual(['Bash', 'mcp__github__.*'])
  })
})
