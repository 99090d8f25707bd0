import { randomUUID } from 'node:crypto'
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from '../../paths/error-code.js'

/** The marker each shared directory carries (docs/adr/0113-shared-volume-check.md). */
export const VOLUME_MARKER = '.toolexec-volume'

/**
 * The id in `directory`'s marker, made if there is none. The marker appears whole or not at
 * all: its text is written under a draft name of its own and linked into place, which fails
 * when another instance's marker got there first. An exclusive create instead shows an empty
 * file between its open and its write, and an instance starting at that moment read the empty
 * id and refused the volume its peer had marked
 * (docs/adr/0607-a-volume-marker-appears-whole.md).
 */
export async function volumeMarker(directory: string): Promise<string> {
  await mkdir(directory, { recursive: true })
  const file = path.join(directory, VOLUME_MARKER)
  const draft = `${file}.${randomUUID()}`
  await writeFile(draft, `vol_${randomUUID()}\n`, { flag: 'wx' })
  try {
    await link(draft, file)
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
  } finally {
    await rm(draft, { force: true })
  }
  return (await readFile(file, 'utf8')).trim()
}
