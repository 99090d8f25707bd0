// Pins docs/adr/0092, 0528 and 0561: each listed name is kept by its own directory's verdict,
// also when the list moves between directories inside and out and back.
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { listedInside } from '../../../src/tools/glob/listed-inside.js'
import { useTestWorkspace } from '../../helpers/tool-context.js'

describe('listedInside', () => {
  it('keeps the names in directories inside and drops those out, whatever their order', async () => {
    const workspace = await useTestWorkspace()
    const inside = path.join(workspace.cwd, 'a')
    const sibling = path.join(workspace.cwd, 'b')
    // A link out named as long as `a`: its names end where `a`'s do.
    const link = path.join(workspace.cwd, 'l')
    await mkdir(inside)
    await mkdir(sibling)
    await symlink(workspace.outside, link)
    for (const file of [path.join(inside, 'x'), path.join(sibling, 'y'), path.join(workspace.outside, 'z')]) {
      await writeFile(file, '')
    }
    const listed = [
      path.join(inside, 'x'),
      path.join(inside, 'x2'),
      path.join(workspace.outside, 'z'),
      path.join(workspace.outside, 'z2'),
      path.join(inside, 'x3'),
      path.join(link, 'z'),
      path.join(sibling, 'y'),
      path.join(link, 'z3'),
    ]
    expect(await listedInside(listed, [workspace.cwd])).toEqual([
      path.join(inside, 'x'),
      path.join(inside, 'x2'),
      path.join(inside, 'x3'),
      path.join(sibling, 'y'),
    ])
  })
})
