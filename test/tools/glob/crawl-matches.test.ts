// Pins docs/adr/0465: a crawl finds what tinyglobby's glob finds, whether the tree is small
// enough for the synchronous crawl or past SYNC_CRAWL_ENTRIES and crawled again asynchronously.
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { glob } from 'tinyglobby'
import { describe, expect, it } from 'vitest'
import { crawlMatches, globCrawlOptions, SYNC_CRAWL_ENTRIES } from '../../../src/tools/glob/crawl-matches.js'
import { useTestWorkspace } from '../../helpers/tool-context.js'

/** The tool's own crawl options: what the synchronous crawl must answer exactly as tinyglobby does. */
const options = globCrawlOptions

async function tree(root: string, files: number) {
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true })
  await mkdir(path.join(root, '.git'))
  await writeFile(path.join(root, '.git', 'config.ts'), '')
  await writeFile(path.join(root, 'src', 'deep', '.hidden.ts'), '')
  for (let index = 0; index < files; index += 1) {
    await writeFile(path.join(root, 'src', index % 2 ? `file-${index}.ts` : `file-${index}.md`), '')
  }
}

describe('crawlMatches', () => {
  it.each([
    ['a small tree (synchronous crawl)', 20],
    ['a tree past the synchronous bound', SYNC_CRAWL_ENTRIES + 10],
  ])('finds what glob finds: %s', async (_name, files) => {
    const workspace = await useTestWorkspace()
    await tree(workspace.cwd, files)
    for (const pattern of ['**/*.ts', 'src/*.md', 'src/deep/*', '**/.git/**']) {
      const found = await crawlMatches(pattern, options(workspace.cwd))
      expect(found.sort()).toEqual((await glob(pattern, options(workspace.cwd))).sort())
    }
    expect(await crawlMatches('**/*.ts', options(workspace.cwd))).toHaveLength(Math.floor(files / 2) + 1)
  })
})
