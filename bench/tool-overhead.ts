import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { containedShellArgv, WRAPPER_SHELL } from '../src/tools/bash/containment.js'
import { directShell, MERGE_STDERR } from '../src/tools/bash/run-shell-command.js'
import { BWRAP_COMMAND, bubblewrapArguments } from '../src/tools/bash/sandbox.js'
import { searchArguments } from '../src/tools/grep/grep-arguments.js'
import {
  BWRAP_FLOOR,
  coldFigures,
  coldNoopRuns,
  commandParts,
  PID_NAMESPACE_FLOOR,
  partFigures,
  rememberingLatency,
  spawnBare,
} from './lib/command-parts.js'
import {
  fileToolsDesignWork,
  fileToolsOwnWork,
  globLeastWork,
  leastWorkFigure,
  nearestAchievable,
  nearestAtThisDesign,
  smallCallFigure,
} from './lib/file-tools-bare-work.js'
import { interleave, serviceFigure } from './lib/interleave.js'
import { noopBatch } from './lib/noop-batch.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { jsonClient, summarise } from './lib/serial-latency.js'
import { startService } from './lib/server-process.js'
import { benchSession, cpuModel, fileToolsSmallCalls, runClient } from './lib/tool-session.js'

export async function toolOverhead(seconds: number): Promise<Figure[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-tools-'))
  const figures: Figure[] = []
  const off = await startService(path.join(scratch, 'off'))
  try {
    const session = await benchSession(off)
    const client = runClient(off, session.id)
    const readyz = (await (await fetch(`${off.url}/readyz`)).json()) as { bash_containment?: string }
    const containment = readyz.bash_containment ?? 'unknown'
    const bashTrue = () => client.run('Bash', { command: 'true' })
    // The same containment as the service's, spawned bare: what the namespace itself costs.
    // In a session of its own, as the service starts it without bubblewrap (docs/adr/0476).
    // Without a PID namespace the service runs `bash -c true` with no wrapper where its spawner
    // merges stderr (docs/adr/0540): so do these rows.
    const offParts = await commandParts(
      containedShellArgv(containment === 'pid-namespace' ? 'pid-namespace' : 'process-group', MERGE_STDERR, 'true'),
      session.cwd,
      false,
      containment === 'pid-namespace' ? ['bash', '-c', 'true'] : undefined,
      directShell(undefined, containment === 'pid-namespace' ? 'pid-namespace' : 'process-group', 'true'),
    )
    const sameContainment =
      containment === 'pid-namespace'
        ? [() => spawnBare('setpriv', [...PID_NAMESPACE_FLOOR, 'bash', '-c', 'true'])]
        : []
    const offFloor = rememberingLatency(() => spawnBare('bash', ['-c', 'true']))
    const offNoop = coldNoopRuns(off, session.id, offFloor.latestMs)
    const offMeasured = await interleave(offFloor.run, bashTrue, seconds, [
      offNoop.run,
      ...sameContainment,
      offParts.bare,
      offParts.throughSpawner,
    ]).finally(() => {
      offParts.close()
      offNoop.close()
    })
    const [, ...offOthers] = offMeasured.others
    const [namespaceFloor, offBare = [], offThroughSpawner = []] =
      offOthers.length === 3 ? offOthers : [undefined, ...offOthers]
    figures.push(
      serviceFigure(
        'Bash `true`, sandbox off: p50, one client in flight',
        'bare `bash -c true` from Node, p50',
        offMeasured,
        1.15,
        {
          containment,
          ...(namespaceFloor ? { sameContainmentFloorP50Ms: summarise(namespaceFloor).p50 } : {}),
        },
      ),
    )
    if (namespaceFloor) {
      figures.push(
        serviceFigure(
          'Bash `true`, sandbox off, PID namespace: p50, one client in flight',
          'bare `setpriv --pdeathsig KILL unshare --pid --fork --kill-child --mount-proc -- bash -c true` from Node, p50',
          { service: offMeasured.service, floor: namespaceFloor },
          1.15,
        ),
      )
    }
    figures.push(
      ...partFigures(
        'Bash `true`, sandbox off',
        namespaceFloor ? 'the same PID namespace bare, p50' : 'bare `bash -c true`, p50',
        namespaceFloor ?? offMeasured.floor,
        offBare,
        offThroughSpawner,
        offParts.spawnerCpu(),
        offParts.namespaced,
      ),
      ...coldFigures(
        'Bash `true`, sandbox off',
        namespaceFloor ? 'the same PID namespace bare, p50' : 'bare `bash -c true`, p50',
        namespaceFloor ?? offMeasured.floor,
        offThroughSpawner,
        offNoop.measured(offMeasured.service.length),
        offMeasured.service,
      ),
    )

    const grepInput = { pattern: 'needle', path: session.cwd }
    const rgArgs = searchArguments('rg', {
      pattern: 'needle',
      path: session.cwd,
      outputMode: 'files_with_matches',
      caseInsensitive: false,
      lineNumbers: true,
      multiline: false,
    })
    // The same search through a spawner from here: the hop without the HTTP request and the tool's code.
    const grepParts = await commandParts(['rg', ...rgArgs], session.cwd, true)
    const grepFloor = rememberingLatency(() => spawnBare('rg', rgArgs, session.cwd))
    const grepNoop = coldNoopRuns(off, session.id, grepFloor.latestMs)
    const grepMeasured = await interleave(grepFloor.run, () => client.run('Grep', grepInput), seconds, [
      grepNoop.run,
      grepParts.throughSpawner,
    ]).finally(() => {
      grepParts.close()
      grepNoop.close()
    })
    figures.push(
      serviceFigure(
        'Grep, 40 files: p50, one client in flight',
        'bare `rg` with the same argv from Node, p50',
        grepMeasured,
        1.1,
      ),
      ratioFigure({
        name: 'Grep, 40 files: the same `rg` through a spawner, no HTTP, p50 (the spawner hop)',
        unit: 'ms',
        value: summarise(grepMeasured.others[1] ?? []).p50,
        baselineName: 'bare `rg` with the same argv from Node, p50',
        baseline: summarise(grepMeasured.floor).p50,
        details: { ...grepParts.spawnerCpu() },
      }),
      ...coldFigures(
        'Grep, 40 files',
        'bare `rg` with the same argv from Node, p50',
        grepMeasured.floor,
        grepMeasured.others[1] ?? [],
        grepNoop.measured(grepMeasured.service.length),
        grepMeasured.service,
      ),
    )

    const noop = jsonClient(`${off.url}/v1/runs`)
    const noopBody = noopBatch(1, { session_id: session.id })
    const noopRun = async () => {
      await noop.post(noopBody)
    }
    const file = path.join(session.cwd, 'edit-me.txt')
    await client.run('Read', { file_path: file })
    let flip = false
    const tools: [string, () => Promise<void>][] = [
      ['Read', () => client.run('Read', { file_path: path.join(session.cwd, 'src/file-1.ts') })],
      ['Glob', () => client.run('Glob', { pattern: 'src/**/*.ts' })],
      [
        'Edit',
        () => {
          flip = !flip
          return client.run('Edit', {
            file_path: file,
            old_string: flip ? 'alpha' : 'omega',
            new_string: flip ? 'omega' : 'alpha',
          })
        },
      ],
    ]
    const ownWork = fileToolsOwnWork(session.cwd)
    const designWork = fileToolsDesignWork(session.cwd)
    const smallCalls = await fileToolsSmallCalls(client, session.cwd)
    const leastWork: Record<string, () => Promise<void>> = { Glob: globLeastWork(session.cwd) }
    for (const [name, call] of tools) {
      // The smaller call right after the tool's own, before the bare parts: both meet a service
      // that has just answered, as the no-op run does.
      const small = smallCalls[name]
      const least = leastWork[name]
      const parts = [small, ownWork[name], designWork[name], least].filter((part) => part !== undefined)
      const measured = await interleave(noopRun, call, seconds, parts)
      const rest = [...measured.others]
      const smallLatencies = small ? rest.shift() : undefined
      const [own = [], design = [], leastLatencies] = rest
      figures.push(
        serviceFigure(
          `${name}: p50, one client in flight`,
          'no-op run (ToolSearch) in the same session, p50',
          measured,
          1.2,
        ),
      )
      figures.push(nearestAchievable(name, measured.floor, own))
      figures.push(nearestAtThisDesign(name, measured.floor, design))
      if (smallLatencies) figures.push(smallCallFigure(name, measured.floor, smallLatencies))
      if (leastLatencies) figures.push(leastWorkFigure(name, measured.floor, leastLatencies))
    }
    noop.close()
    client.close()
  } finally {
    await off.stop()
  }

  // The cold start (goal 2): warm sandboxes have their own figure, bench/warm-sandboxes.ts.
  const sandboxed = await startService(path.join(scratch, 'bwrap'), {
    TOOLEXEC_SANDBOX: 'bwrap',
    TOOLEXEC_WARM_SANDBOXES: '0',
  }).catch((error: Error) => error)
  if (sandboxed instanceof Error) {
    console.log(`bubblewrap figure skipped: ${sandboxed.message}`)
  } else {
    try {
      const session = await benchSession(sandboxed)
      const client = runClient(sandboxed, session.id)
      // The layout of a session's call: its cwd writable, a blob directory read-only.
      const blobs = await mkdtemp(path.join(scratch, 'blobs-'))
      const layout = { cwd: session.cwd, writableDirectories: [session.cwd], readOnlyDirectories: [blobs] }
      // The service's argv: bash directly, bubblewrap's start byte on fd 3, where its spawner can
      // (docs/adr/0540, 0541); else the wrapper shell's.
      const sandboxArguments = bubblewrapArguments(layout)
      const parts = await commandParts(
        [BWRAP_COMMAND, ...sandboxArguments, WRAPPER_SHELL, '-c', MERGE_STDERR, 'sh', 'true'],
        session.cwd,
        true,
        undefined,
        directShell([BWRAP_COMMAND, ...sandboxArguments], 'bwrap', 'true'),
      )
      const floor = rememberingLatency(() => spawnBare('bwrap', [...BWRAP_FLOOR, 'bash', '-c', 'true']))
      const noop = coldNoopRuns(sandboxed, session.id, floor.latestMs)
      const measured = await interleave(floor.run, () => client.run('Bash', { command: 'true' }), seconds, [
        noop.run,
        parts.bare,
        parts.throughSpawner,
      ]).finally(() => {
        parts.close()
        noop.close()
      })
      figures.push(
        serviceFigure(
          'Bash `true`, bubblewrap: p50, one client in flight',
          'bare `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent bash -c true`, p50',
          measured,
          1.15,
        ),
        ...partFigures(
          'Bash `true`, bubblewrap',
          'the bare `bwrap --ro-bind / / …` floor, p50',
          measured.floor,
          measured.others[1] ?? [],
          measured.others[2] ?? [],
          parts.spawnerCpu(),
        ),
        ...coldFigures(
          'Bash `true`, bubblewrap',
          'the bare `bwrap --ro-bind / / …` floor, p50',
          measured.floor,
          measured.others[2] ?? [],
          noop.measured(measured.service.length),
          measured.service,
        ),
      )
      client.close()
    } finally {
      await sandboxed.stop()
    }
  }
  await rm(scratch, { recursive: true, force: true })
  console.log(`CPU: ${cpuModel()}`)
  return figures.map((entry) => ({ ...entry, details: { ...entry.details, cpu: cpuModel() } }))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '10' } },
  })
  emitFigures(await toolOverhead(Number(values.seconds)))
}
