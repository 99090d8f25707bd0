// Pins that every directory the service writes (each TOOLEXEC_* directory variable of the config
// schema) is set to the /data volume in the image and in the compose file: the image runs as
// `node`, and a default under the root-owned /app fails with EACCES (issue 20).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string) => readFileSync(`${root}/${file}`, 'utf8')
// The secrets file is written too (docs/adr/0330-secret-store.md).
const directoryVariables = [
  ...new Set(read('src/config/config-schema.ts').match(/TOOLEXEC_\w*(?:_DIR|WORKSPACE)\b|TOOLEXEC_SECRETS_FILE/g)),
]

describe('the directories of the image and the compose deployment', () => {
  it('finds the directory variables', () => {
    expect(directoryVariables).toEqual(
      expect.arrayContaining([
        'TOOLEXEC_WORKSPACE',
        'TOOLEXEC_BLOB_DIR',
        'TOOLEXEC_MEMORY_DIR',
        'TOOLEXEC_SECRETS_FILE',
      ]),
    )
  })

  it.each(directoryVariables)('%s is on the /data volume in the Dockerfile and docker-compose.yml', (variable) => {
    expect(read('Dockerfile')).toMatch(new RegExp(`\\b${variable}=/data/`))
    expect(read('docker-compose.yml')).toMatch(new RegExp(`\\b${variable}: /data/`))
  })
})
