// Pins, by property-based fuzzing, that the native spawner's JSON reader (native/json-reader.c,
// docs/adr/0499-the-native-spawner.md) takes any line without crashing: each mutated message is
// answered as a message or refused by exiting with code 2, never a signal, and a spawner that
// took one still answers the next request.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { Duplex } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { NATIVE_SPAWNER, nativeSpawnerMissing } from '../../src/tools/bash/spawner-choice.js'
import { FUZZ_TEST_TIMEOUT_MS } from './fuzz-server.js'

const MESSAGES = [
  String.raw`{"type":"spawn","id":1,"file":"/bin/true","args":["a\"b","\u00e9\ud83d\ude00"],"cwd":"/tmp","env":{"X":"\n\t\\"},"announcesStart":true}`,
  '{"type":"spawn","id":2,"file":"/bin/true","args":[],"cwd":"/tmp","env":{},"takesInput":true,"reportsStatus":true,"announcesStart":true}',
  '{"type":"signal","id":1,"signal":"SIGTERM"}',
  '{"type":"input","id":2,"data":"hello\\n"}',
  '{"cmd":"NODE_HANDLE_ACK"}',
]
const PIECES = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ':',
  ',',
  '\\',
  '\\u',
  'd83d',
  'dc00',
  '0',
  '-1e5',
  'true',
  'null',
  '\u0000',
  'é',
  '😀',
  ' ',
]
/** A probe whose answer says the spawner read everything before it: a start that fails. */
const PROBE = '{"type":"spawn","id":999,"file":"/no/such/file","args":[],"cwd":"/tmp","env":{}}\n'

const mutated = fc
  .tuple(
    fc.constantFrom(...MESSAGES),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.array(fc.constantFrom(...PIECES), { maxLength: 3 })), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([message, edits]) =>
    edits.reduce(
      (text, [at, removed, inserted]) =>
        text.slice(0, at % (text.length + 1)) + inserted.join('') + text.slice((at % (text.length + 1)) + removed),
      message,
    ),
  )
  .filter((text) => !text.includes('\n'))

/** One native spawner, its channel written by hand; `send` resolves with how it took a line. */
async function startSpawner() {
  const child = spawn(NATIVE_SPAWNER, [], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    env: { NODE_CHANNEL_FD: '3' },
  })
  const channel = child.stdio[3] as Duplex
  channel.on('error', () => undefined)
  const closed = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  let said = ''
  let waiting: (() => void) | undefined
  channel.on('data', (chunk: Buffer) => {
    said += chunk
    waiting?.()
  })
  await new Promise<void>((resolve) => {
    waiting = () => said.includes('\n') && resolve()
    waiting()
  })
  const send = async (line: string): Promise<'answered' | [number | null, NodeJS.Signals | null]> => {
    said = ''
    channel.write(`${line}\n${PROBE}`)
    const answered = new Promise<'answered'>((resolve) => {
      waiting = () => said.includes('"id":999') && resolve('answered')
    })
    return Promise.race([answered, closed])
  }
  return { send, stop: () => channel.end(), closed }
}

describe.skipIf(nativeSpawnerMissing() !== undefined)('fuzzing the native spawner', () => {
  it(
    'answers or refuses every line, and never dies of a signal',
    async () => {
      let spawner = await startSpawner()
      const outcomes = { answered: 0, refused: 0 }
      await fc.assert(
        fc.asyncProperty(mutated, async (line) => {
          const outcome = await spawner.send(line)
          if (outcome === 'answered') {
            outcomes.answered++
            return
          }
          expect({ line, outcome }).toEqual({ line, outcome: [2, null] })
          outcomes.refused++
          spawner = await startSpawner()
        }),
        { numRuns: 300, seed: 499 },
      )
      spawner.stop()
      expect(await spawner.closed).toEqual([0, null])
      // Both kinds of outcome happened: the mutations reach the reader's paths, not only one of them.
      expect(outcomes.answered).toBeGreaterThan(0)
      expect(outcomes.refused).toBeGreaterThan(0)
    },
    FUZZ_TEST_TIMEOUT_MS,
  )
})
