import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { load } from './lib/load.js'
import { noopBatch } from './lib/noop-batch.js'
import { startService } from './lib/server-process.js'

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-prof-'))
const s = await startService(scratch, {}, ['--cpu-prof', `--cpu-prof-dir=/tmp/f14prof/${process.argv[2]}`])
await load({ url: `${s.url}/v1/runs`, body: noopBatch(Number(process.argv[3])), connections: 50, duration: 2 })
const r = await load({
  url: `${s.url}/v1/runs`,
  body: noopBatch(Number(process.argv[3])),
  connections: 50,
  duration: 8,
})
console.log(r)
await s.stop()
