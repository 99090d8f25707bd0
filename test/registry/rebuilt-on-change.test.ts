// Pins rebuiltOnChange (docs/adr/0172-tool-pool-kept-per-context.md): built once per source
// object, built again as soon as the source answers with another one.
import { describe, expect, it } from 'vitest'
import { rebuiltOnChange } from '../../src/registry/rebuilt-on-change.js'

describe('rebuiltOnChange', () => {
  it('builds once per source object', () => {
    let source = ['a']
    let builds = 0
    const derived = rebuiltOnChange(
      () => source,
      (list) => {
        builds++
        return new Set(list)
      },
    )
    const first = derived()
    expect(derived()).toBe(first)
    expect(builds).toBe(1)
    source = ['a', 'b']
    expect([...derived()]).toEqual(['a', 'b'])
    expect(builds).toBe(2)
  })
})
