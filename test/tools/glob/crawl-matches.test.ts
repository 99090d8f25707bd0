// Pins docs/adr/0465 and 0560: a crawl finds what tinyglobby's glob finds, whether the tree is
// small enough for the synchronous crawl (the pattern compiled once, or tinyglobby's own for a
// pattern left to it) or past SYNC_CRAWL_ENTRIES and crawled again asynchronously; and 0595: the
// compiled crawl's runs each hold the names of one directory.
import { execFileSync } from 'node:child_process'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { glob, globSync } from 'tinyglobby'
import { describe, expect, it } from 'vitest'
import { compiledPattern } from '../../../src/tools/glob/compiled-pattern.js'
import {
  crawlMatches,
  globCrawlOptions,
  type Listing,
  SYNC_CRAWL_ENTRIES,
} from '../../../src/tools/glob/crawl-matches.js'
import { useTestWorkspace } from '../../helpers/tool-context.js'

/** The tool's own crawl options: what every crawl must answer exactly as tinyglobby does. */
const options = globCrawlOptions

/**
 * The files, after checking what the listing says of its runs: they start at the first name, in
 * order, and every name of a run has its first name's directory (listedInside judges a run by it).
 */
function checkedRuns({ files, runStarts }: Listing): string[] {
  if (runStarts === undefined) return files
  expect(runStarts[0] ?? 0).toBe(0)
  runStarts.forEach((start, run) => {
    const end = runStarts[run + 1] ?? files.length
    expect(end).toBeGreaterThan(start)
    const directory = path.dirname(files[start] as string)
    for (const file of files.slice(start, end)) expect(path.dirname(file)).toBe(directory)
  })
  return files
}

async function tree(root: string, files: number) {
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true })
  await mkdir(path.join(root, '.git'))
  await writeFile(path.join(root, '.git', 'config.ts'), '')
  await writeFile(path.join(root, 'src', 'deep', '.hidden.ts'), '')
  for (let index = 0; index < files; index += 1) {
    await writeFile(path.join(root, 'src', index % 2 ? `file-${index}.ts` : `file-${index}.md`), '')
  }
}

/**
 * A tree with what a crawl must get right: dot files and directories, `.git` as a directory at
 * any depth and as a file, links to files and directories inside, out, and up, a FIFO, and names
 * with spaces and glob characters.
 */
async function trickyTree(root: string, outside: string) {
  const files = [
    'src/a.ts',
    'src/b.js',
    'src/.hidden.ts',
    'src/deep/c.ts',
    'src/deep/.dot/d.ts',
    'src/.git/x.ts',
    '.git/config.ts',
    'sub/.git',
    'sub/e.ts',
    'lib/f.ts',
    'lib/g.md',
    'a/b/h.ts',
    'a/c/i.ts',
    'x y/z.ts',
    'br{a,c}e/j.ts',
    'top.ts',
    '.top.ts',
  ]
  for (const file of files) {
    await mkdir(path.join(root, path.dirname(file)), { recursive: true })
    await writeFile(path.join(root, file), '')
  }
  await writeFile(path.join(outside, 'secret.ts'), '')
  await symlink(path.join(root, 'src'), path.join(root, 'linkdir'))
  await symlink(path.join(root, 'src', 'a.ts'), path.join(root, 'linkfile.ts'))
  await symlink('..', path.join(root, 'src', 'deep', 'uplink'))
  await symlink(outside, path.join(root, 'out'))
  await symlink(path.join(root, 'a', 'b'), path.join(root, 'a', 'lb'))
  execFileSync('mkfifo', [path.join(root, 'src', 'pipe.ts')])
}

const PATTERNS = [
  '**/*',
  '**',
  '*',
  '*.ts',
  '**/*.ts',
  'src/**/*.ts',
  'src/**',
  'src/*',
  'src',
  'src/',
  './src/*.ts',
  'src//*.ts',
  'src/deep/*',
  'src/deep/**/*',
  '**/*.{ts,js}',
  '{src,lib}/**/*.ts',
  'src/{deep/.dot,deep}/*',
  '?(src|lib)/*.ts',
  '+(s)rc/**',
  '!(lib)/*.ts',
  '**/[ab]*.ts',
  '**/.*',
  '.*',
  'linkdir/*',
  'linkdir/**',
  'linkdir/deep/*',
  'linkfile.ts',
  'out/*',
  'a/b/**',
  'a/lb/**',
  'a/lb/*',
  'a/*/*.ts',
  '**/.git',
  '.git/*',
  '**/.git/**',
  'sub/.git',
  'sub/*',
  'src/.git/*',
  'nope/*',
  'src/a.ts',
  'src/a.ts/*',
  'x y/*',
  'br{a,c}e/*',
  '**/deep/**',
  'src/**/deep/*.ts',
  'src/deep/uplink/*',
  '**/uplink/*',
  '*/',
  'src/\\*.ts',
  'src/*.\\ts',
]

describe('crawlMatches', () => {
  it.each([
    ['a small tree (synchronous crawl)', 20],
    ['a tree past the synchronous bound', SYNC_CRAWL_ENTRIES + 10],
  ])('finds what glob finds: %s', async (_name, files) => {
    const workspace = await useTestWorkspace()
    await tree(workspace.cwd, files)
    for (const pattern of ['**/*.ts', 'src/*.md', 'src/deep/*', '**/.git/**']) {
      const found = checkedRuns(await crawlMatches(pattern, workspace.cwd))
      expect(found.sort()).toEqual((await glob(pattern, options(workspace.cwd))).sort())
    }
    expect((await crawlMatches('**/*.ts', workspace.cwd)).files).toHaveLength(Math.floor(files / 2) + 1)
  })

  it.each(PATTERNS)('finds what globSync finds in a tree of links, dot names and .git: %s', async (pattern) => {
    const workspace = await useTestWorkspace()
    await trickyTree(workspace.cwd, workspace.outside)
    const expected = globSync(pattern, options(workspace.cwd)).sort()
    const listing = await crawlMatches(pattern, workspace.cwd)
    // The compiled crawl says where its runs start; only tinyglobby's answer has none.
    expect(listing.runStarts === undefined).toBe(compiledPattern(pattern) === undefined)
    expect(checkedRuns(listing).sort()).toEqual(expected)
  })

  it("starts a directory's run again after a subdirectory's names", async () => {
    const workspace = await useTestWorkspace()
    // Files and subdirectories interleaved in one directory: in any order the file system lists
    // them but all files first, a subdirectory's matches come between the directory's own.
    for (let index = 0; index < 12; index += 1) {
      await mkdir(path.join(workspace.cwd, 'd', `s${index}`), { recursive: true })
      await writeFile(path.join(workspace.cwd, 'd', `s${index}`, 'g.ts'), '')
      await writeFile(path.join(workspace.cwd, 'd', `f${index}.ts`), '')
    }
    const listing = await crawlMatches('d/**/*.ts', workspace.cwd)
    expect(checkedRuns(listing)).toHaveLength(24)
    expect(listing.runStarts?.length).toBeGreaterThanOrEqual(13)
  })

  it('compiles a pattern once and leaves escapes and negations to tinyglobby', () => {
    expect(compiledPattern('src/**/*.ts')).toBe(compiledPattern('src/**/*.ts'))
    expect(compiledPattern('src/**/*.ts')?.start).toEqual(['src'])
    expect(compiledPattern('src/\\*.ts')).toBeUndefined()
    expect(compiledPattern('!src/*.ts')).toBeUndefined()
  })
})
