/**
 * Where a Bash `true` or Grep call's time goes, stage by stage, next to the same stages of the
 * bare floor (issue 23, goal 2). The service runs as `node dist/server.js` with a preload that
 * stamps its HTTP request and answer and each spawner message (bench/servers/stage-trace-preload.ts);
 * with `--spawner node` the Node spawner stamps its `spawn()` and the command's exit too
 * (traced-spawner.ts); the native spawner (the default, docs/adr/0499) stamps nothing, so its
 * stages are seen from the service's side only. The stamps are CLOCK_MONOTONIC, shared by the
 * processes. Calls alternate with the floor
 * spawned from this process (the argv of bench/tool-overhead.ts), one in flight; each stage is a
 * median over the calls. A diagnosis, not a figure of `npm run bench`.
 *
 *   npx tsx bench/spawn-stages.ts [--tool bash|grep|noop] [--sandbox off|bwrap] [--spawner native|node] [--calls 200] [--nice 10] [--profile DIR]
 */
import type { ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { searchArguments } from '../src/tools/grep/grep-arguments.js'
import { BWRAP_FLOOR, PID_NAMESPACE_FLOOR } from './lib/command-parts.js'
import { noopBatch } from './lib/noop-batch.js'
import { jsonClient } from './lib/serial-latency.js'
import { buildBenchOnce, REPOSITORY, startService } from './lib/server-process.js'
import { median, now, readStamps, spawnStamped, startStrace } from './lib/stage-trace.js'

const { values } = parseArgs({
  options: {
    tool: { type: 'string', default: 'bash' },
    sandbox: { type: 'string', default: 'off' },
    calls: { type: 'string', default: '200' },
    nice: { type: 'string', default: '10' },
    /** The service's spawner: `native` (stamped from the service's side only) or `node` (stamped inside too). */
    spawner: { type: 'string', default: 'native' },
    /** A directory for the service's `--cpu-prof` profile (and the spawner's, in its `spawner` folder). */
    profile: { type: 'string' },
    /** A file for `strace -f -ttt` of the service and its spawner over the first 20 measured calls. */
    strace: { type: 'string' },
  },
})
const calls = Number(values.calls)
const nodeSpawner = values.spawner === 'node'
if (!nodeSpawner && values.spawner !== 'native') throw new Error(`--spawner is native or node, not ${values.spawner}`)

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-stages-'))
const traceDir = path.join(scratch, 'trace')
await mkdir(traceDir)
buildBenchOnce()
const service = await startService(
  scratch,
  {
    TOOLEXEC_SANDBOX: values.sandbox as string,
    TOOLEXEC_WARM_SANDBOXES: '0',
    TOOLEXEC_PROCESS_NICE: values.nice as string,
    STAGE_TRACE_DIR: traceDir,
    // Only the Node spawner stamps its own stages (traced-spawner.ts); the native one has none.
    TOOLEXEC_SPAWNER: values.spawner as string,
    ...(values.profile && nodeSpawner ? { SPAWNER_PROFILE_DIR: path.join(values.profile, 'spawner') } : {}),
  },
  [
    '--import',
    path.join(REPOSITORY, 'dist/bench/servers/stage-trace-preload.js'),
    ...(values.profile ? ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', values.profile] : []),
  ],
)
try {
  const sessions = jsonClient(`${service.url}/v1/sessions`)
  const session = JSON.parse(
    await sessions.post(JSON.stringify({ cwd: 'bench', permissions: { allow: ['Bash'] } })),
  ) as { session_id: string; cwd: string }
  sessions.close()
  await mkdir(path.join(session.cwd, 'src'), { recursive: true })
  for (let index = 0; index < 40; index += 1) {
    const lines = Array.from({ length: 50 }, (_unused, line) => `export const value${line} = ${index * line} // line`)
    if (index % 10 === 0) lines.push('// the needle is here')
    await writeFile(path.join(session.cwd, 'src', `file-${index}.ts`), `${lines.join('\n')}\n`)
  }
  const readyz = (await (await fetch(`${service.url}/readyz`)).json()) as { bash_containment?: string }
  const grep = values.tool === 'grep'
  const input = grep ? { pattern: 'needle', path: session.cwd } : { command: 'true' }
  // The no-op run: what the HTTP round trip and a run cost with no process at all.
  const body =
    values.tool === 'noop'
      ? noopBatch(1, { session_id: session.session_id })
      : JSON.stringify({
          session_id: session.session_id,
          tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: grep ? 'Grep' : 'Bash', input }],
        })
  const floor: [string, string[], string | undefined] = grep
    ? [
        'rg',
        searchArguments('rg', {
          pattern: 'needle',
          path: session.cwd,
          outputMode: 'files_with_matches',
          caseInsensitive: false,
          lineNumbers: true,
          multiline: false,
        }),
        session.cwd,
      ]
    : values.sandbox === 'bwrap'
      ? ['bwrap', [...BWRAP_FLOOR, 'bash', '-c', 'true'], undefined]
      : ['setpriv', [...PID_NAMESPACE_FLOOR, 'bash', '-c', 'true'], undefined]
  const client = jsonClient(`${service.url}/v1/runs`)
  // The spawner is the service's one child process while no command runs.
  const servicePid = service.child.pid as number
  const spawnerPid = Number(
    readFileSync(`/proc/${servicePid}/task/${servicePid}/children`, 'utf8').trim().split(' ')[0],
  )
  const cpu = (pid: number | undefined, file = `/proc/${pid}/stat`) => {
    if (pid === undefined) return Number.NaN
    const fields = readFileSync(file, 'utf8').split(') ')[1]?.split(' ') ?? []
    // utime and stime, in clock ticks (100 a second): fields 14 and 15 of stat.
    return (Number(fields[11]) + Number(fields[12])) * 10
  }
  // Each thread of the service by name (main, libuv's threadpool, V8's workers): where its CPU goes.
  const threads = (pid: number) => {
    const byName = new Map<string, number>()
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
        const key = tid === String(pid) ? 'main' : name
        byName.set(key, (byName.get(key) ?? 0) + cpu(Number(tid), `/proc/${pid}/task/${tid}/stat`))
      } catch {
        // A thread gone in between.
      }
    }
    return byName
  }
  /** The spawner's resident set, in MB: what each of its forks copies the page tables of. */
  const rssMb = (pid: number) =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024
  let threadsBefore = new Map<string, number>()
  const windows: [number, number][] = []
  const floors: Record<string, number>[] = []
  const cpuBefore: (number | NodeJS.CpuUsage)[] = []
  let tracer: ChildProcess | undefined
  for (let round = 0; round < calls + 20; round += 1) {
    const bare = await spawnStamped(...floor)
    const sent = now()
    const answer = JSON.parse(await client.post(body)) as { results: { is_error?: boolean }[] }
    const received = now()
    if (answer.results[0]?.is_error) throw new Error(`the call failed: ${JSON.stringify(answer.results[0])}`)
    // The first 20 of each warm both up.
    if (round === 20 && values.strace) tracer = await startStrace(servicePid, values.strace)
    if (round === 40 && tracer) {
      tracer.kill('SIGINT')
      tracer = undefined
    }
    if (round === 20) {
      cpuBefore.push(cpu(service.child.pid), cpu(spawnerPid), process.cpuUsage())
      threadsBefore = threads(servicePid)
    }
    if (round >= 20) {
      floors.push(bare)
      windows.push([sent, received])
    }
  }
  const cpuAfter = [cpu(service.child.pid), cpu(spawnerPid), process.cpuUsage(cpuBefore[2] as NodeJS.CpuUsage)]
  const threadsAfter = threads(servicePid)
  const spawnerRss = values.tool === 'noop' ? Number.NaN : rssMb(spawnerPid)
  client.close()
  process.kill(service.child.pid as number, 'SIGUSR2')
  const serviceStamps = await readStamps(path.join(traceDir, 'service.json'))
  const spawnerStamps = nodeSpawner ? await readStamps(path.join(traceDir, 'spawner.json')) : []

  const stages = new Map<string, number[]>()
  const add = (name: string, value: number | undefined) => {
    if (value === undefined || Number.isNaN(value)) return
    stages.set(name, [...(stages.get(name) ?? []), value])
  }
  for (const [sent, received] of windows) {
    const inWindow = serviceStamps.filter(([, , at]) => at >= sent && at <= received)
    const at = (stage: string) => inWindow.find(([name]) => name === stage)?.[2]
    const id = inWindow.find(([name]) => name === 'service-sent-spawn')?.[1]
    const own = (stage: string) => spawnerStamps.find(([name, stampId]) => name === stage && stampId === id)?.[2]
    const mine = (stage: string) => inWindow.find(([name, stampId]) => name === stage && stampId === id)?.[2]
    const request = at('http-request') as number
    if (id === undefined) {
      // The no-op run: no process, only the HTTP round trip and the run.
      add('client sends → service parses the request', request - sent)
      add('request → response written (the run, no process)', (at('http-response-written') ?? 0) - request)
      add('response written → client has it', received - (at('http-response-written') ?? 0))
      add('total, client', received - sent)
      continue
    }
    if (!nodeSpawner) {
      // The native spawner: what the service sees of it, message by message.
      const sentSpawn = mine('service-sent-spawn') ?? 0
      const exit = mine('service-got-exit') ?? 0
      const nativeStages: [string, number | undefined][] = [
        ['client sends → service parses the request', request - sent],
        ['request → spawn request sent to the spawner', sentSpawn - request],
        ['(the send itself: child.send() returned)', (mine('service-sent-spawn-returned') ?? Number.NaN) - sentSpawn],
        ['spawn request → service has `spawned`', (mine('service-got-spawned') ?? 0) - sentSpawn],
        ['(spawn request → service has `started`)', (mine('service-got-started') ?? Number.NaN) - sentSpawn],
        ['`spawned` → service has `exit`', exit - (mine('service-got-spawned') ?? 0)],
        ['service: exit message → response written', (at('http-response-written') ?? 0) - exit],
        ['response written → client has it', received - (at('http-response-written') ?? 0)],
        ['(stdout close in the service − exit message)', (mine('service-stdout-close') ?? 0) - exit],
        ['total, client', received - sent],
      ]
      for (const [name, value] of nativeStages) add(name, value)
      continue
    }
    const stamps: [string, number | undefined][] = [
      ['client sends → service parses the request', request - sent],
      ['request → spawn request sent to the spawner', (mine('service-sent-spawn') ?? 0) - request],
      ['spawn request → spawner receives it', (own('spawner-received') ?? 0) - (mine('service-sent-spawn') ?? 0)],
      ['spawner: receive → spawn() called', (own('spawner-spawn-call') ?? 0) - (own('spawner-received') ?? 0)],
      [
        'spawner: spawn() (fork, wait for exec)',
        (own('spawner-spawn-returned') ?? 0) - (own('spawner-spawn-call') ?? 0),
      ],
      [
        'command: spawn() returned → exit seen by the spawner',
        (own('spawner-exit-event') ?? 0) - (own('spawner-spawn-returned') ?? 0),
      ],
      [
        'exit: spawner sees it → service has the message',
        (mine('service-got-exit') ?? 0) - (own('spawner-exit-event') ?? 0),
      ],
      [
        'service: exit message → response written',
        (at('http-response-written') ?? 0) - (mine('service-got-exit') ?? 0),
      ],
      ['response written → client has it', received - (at('http-response-written') ?? 0)],
    ]
    for (const [name, value] of stamps) add(name, value)
    add(
      '(spawned: spawner sent → service has it)',
      (mine('service-got-spawned') ?? 0) - (own('spawner-sent-spawned') ?? 0),
    )
    add(
      '(started: service has it − spawn() returned)',
      (mine('service-got-started') ?? Number.NaN) - (own('spawner-spawn-returned') ?? 0),
    )
    add(
      '(stdout close in the service − exit message)',
      (mine('service-stdout-close') ?? 0) - (mine('service-got-exit') ?? 0),
    )
    add(
      '(stderr-end message − exit message)',
      (mine('service-got-stderr-end') ?? Number.NaN) - (mine('service-got-exit') ?? 0),
    )
    add('total, client', received - sent)
  }
  for (const bare of floors) {
    add('floor: spawn() (fork, wait for exec)', (bare.returned ?? 0) - (bare.call ?? 0))
    add('floor: spawn() returned → exit', (bare.exit ?? 0) - (bare.returned ?? 0))
    add('floor: exit → close', (bare.close ?? 0) - (bare.exit ?? 0))
    add('floor total', (bare.close ?? 0) - (bare.call ?? 0))
  }
  console.log(
    `${values.tool} (${grep ? 'rg' : readyz.bash_containment}), sandbox ${values.sandbox}, ${values.spawner} spawner, nice ${values.nice}, ${windows.length} calls; medians in ms`,
  )
  const perCall = (index: number) => ((cpuAfter[index] as number) - (cpuBefore[index] as number)) / windows.length
  const own = cpuAfter[2] as NodeJS.CpuUsage
  console.log(
    `CPU a call (ms, from /proc): service ${perCall(0).toFixed(2)}, spawner ${perCall(1).toFixed(2)}; this process (client and floor) ${((own.user + own.system) / 1000 / windows.length).toFixed(2)}`,
  )
  const byThread = [...threadsAfter]
    .map(([name, after]) => [name, (after - (threadsBefore.get(name) ?? 0)) / windows.length] as const)
    .filter(([, perCall]) => perCall > 0)
    .map(([name, perCall]) => `${name} ${perCall.toFixed(2)}`)
  console.log(
    `  the service's threads (ms a call): ${byThread.join(', ')}; the spawner's RSS ${spawnerRss.toFixed(1)} MB`,
  )
  console.log('  median      mean  calls  stage')
  for (const [name, list] of stages) {
    const mean = list.reduce((sum, value) => sum + value, 0) / list.length
    console.log(
      `${(median(list) / 1000).toFixed(3).padStart(8)}  ${(mean / 1000).toFixed(3).padStart(8)}  ${String(list.length).padStart(5)}  ${name}`,
    )
  }
} finally {
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
