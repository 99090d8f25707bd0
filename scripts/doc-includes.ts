/**
 * Copies each example a document includes into it: a fenced block right after
 * `<!-- include: examples/NAME.ts -->` is replaced with the file as it is, so the code a reader
 * sees is the code the tests run (test/docs/snippets.test.ts fails on a stale copy).
 *
 *   npx tsx scripts/doc-includes.ts
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const INCLUDE = /(<!-- include: (\S+) -->\n```\w*\n)[\s\S]*?```/g

const documents = [
  'README.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
for (const document of documents) {
  const before = readFileSync(`${ROOT}${document}`, 'utf8')
  const after = before.replace(
    INCLUDE,
    (_, opening: string, file: string) => `${opening}${readFileSync(`${ROOT}${file}`, 'utf8')}\`\`\``,
  )
  if (after !== before) {
    writeFileSync(`${ROOT}${document}`, after)
    console.log(`updated ${document}`)
  }
}
