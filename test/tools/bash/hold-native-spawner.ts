// Run as its own process by native-spawner.test.ts: it holds the native spawner's channel, starts two
// commands under it (one with a session of its own, one without), prints their pids and the
// spawner's as a JSON line, and waits to be killed.
import { NATIVE_SPAWNER } from '../../../src/tools/bash/spawner-choice.js'
import { connectSpawner } from '../../../src/tools/bash/spawner-client.js'

const marker = `sleep ${process.argv[2]}`
const spawner = await connectSpawner(NATIVE_SPAWNER)
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
const grouped = await spawner.launch('sh', ['-c', `${marker}1 & ${marker}2`], { cwd: '/tmp', env })
const alone = await spawner.launch('sleep', [`${process.argv[2]}3`], { cwd: '/tmp', env, sameSession: true })
for (const command of [grouped, alone]) command.stdout.resume()
console.log(JSON.stringify({ spawner: spawner.pid, commands: [grouped.pid, alone.pid] }))
setInterval(() => undefined, 60_000)
