import { randomUUID } from 'node:crypto'
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from '../../paths/error-code.js'

/** The marker each shared directory carries (docs/adr/0113-shared-volume-check.md). */
export const VOLUME_MARKER = '.toolexec-volume'

/** Puts a finished file at a new name, failing with EEXIST when the name is taken: a hard link. */
type PlaceFile = (existing: string, name: string) => Promise<void>

/**
 * The id in `directory`'s marker, made if there is none. The marker appears whole or not at
 * all: its text is written under a draft name of its own and linked into place, which fails
 * when another instance's marker got there first. An exclusive create instead shows an empty
 * file between its open and its write, and an instance starting at that moment read the empty
 * id and refused the volume its peer had marked. A volume without hard links (a FUSE bucket)
 * gets the exclusive create as before, and that moment with it
 * (docs/adr/0607-a-volume-marker-appears-whole.md).
 */
export async function volumeMarker(directory: string, place: PlaceFile = link): Promise<string> {
  await mkdir(directory, { recursive: true })
  const file = path.join(directory, VOLUME_MARKER)
  const id = `vol_${randomUUID()}\n`
  const draft = `${file}.${randomUUID()}`
  await writeFile(draft, id, { flag: 'wx' })
  try {
    await place(draft, file)
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') await createExclusively(file, id)
  } finally {
    await rm(draft, { force: true })
  }
  return (await readFile(file, 'utf8')).trim()
}

async function createExclusively(file: string, id: string): Promise<void> {
  try {
    await writeFile(file, id, { flag: 'wx' })
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
  }
}
