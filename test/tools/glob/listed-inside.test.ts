// Pins docs/adr/0092, 0528, 0561 and 0595: each listed name is kept by its own directory's verdict,
// also when the list moves between directories inside and out and back, whether the names are
// compared (tinyglobby's answer) or the crawl says where each directory's run starts.
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { listedInside } from '../../../src/tools/glob/listed-inside.js'
import { useTestWorkspace } from '../../helpers/tool-context.js'

/** A workspace with directories inside (`a`, `b`), a link out (`l`) and the outside itself. */
async function namesInAndOut() {
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
  const kept = [path.join(inside, 'x'), path.join(inside, 'x2'), path.join(inside, 'x3'), path.join(sibling, 'y')]
  return { workspace, listed, kept, inside, link }
}

describe('listedInside', () => {
  it('keeps the names in directories inside and drops those out, whatever their order', async () => {
    const { workspace, listed, kept } = await namesInAndOut()
    expect(await listedInside({ files: listed }, [workspace.cwd])).toEqual(kept)
  })

  it("judges each of the crawl's runs by its directory, runs out first, between and last", async () => {
    const { workspace, listed, kept, inside, link } = await namesInAndOut()
    expect(await listedInside({ files: listed, runStarts: [0, 2, 4, 5, 6, 7] }, [workspace.cwd])).toEqual(kept)
    const many = Array.from({ length: 50 }, (_, index) => path.join(inside, `n${index}`))
    const out = [path.join(link, 'z'), path.join(link, 'z3')]
    expect(await listedInside({ files: [...out, ...many], runStarts: [0, 2] }, [workspace.cwd])).toEqual(many)
    expect(await listedInside({ files: [...many, ...out], runStarts: [0, 50] }, [workspace.cwd])).toEqual(many)
    // All inside: the crawl's own array, not a copy.
    expect(await listedInside({ files: many, runStarts: [0] }, [workspace.cwd])).toBe(many)
    expect(await listedInside({ files: out, runStarts: [0] }, [workspace.cwd])).toEqual([])
  })

  it('compares each name of a listing whose runs do not start at its first name', async () => {
    const { workspace, link, inside } = await namesInAndOut()
    const files = [path.join(link, 'z'), path.join(inside, 'x')]
    expect(await listedInside({ files, runStarts: [1] }, [workspace.cwd])).toEqual([path.join(inside, 'x')])
  })
})
