import { readFileSync } from 'node:fs'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { z } from 'zod'
import { buildTool } from '../../src/tool/build-tool.js'

/** The most one loopback connection can hold in the kernel: the largest receive plus send buffer. */
function kernelSocketBufferBytes(): number {
  const largest = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/).at(-1))
  try {
    return largest('/proc/sys/net/ipv4/tcp_rmem') + largest('/proc/sys/net/ipv4/tcp_wmem')
  } catch {
    return 64 * 1024 * 1024
  }
}

/**
 * Bytes of progress that no host's socket buffers can absorb: twice what the kernel could hold
 * for one connection as tuned on this host, so a subscriber that does not read must fall behind
 * by more than any server-side limit, whatever the kernel's autotuning.
 */
export const UNABSORBABLE_BYTES = 2 * kernelSocketBufferBytes()

const CHUNK = 'x'.repeat(256 * 1024)

/** `Flood`: emits `bytes` of progress in 256 KiB events, yielding a turn between them, then returns. */
export const floodTool = buildTool({
  name: 'Flood',
  ruleFamily: 'none',
  inputSchema: z.strictObject({ bytes: z.number().int().positive() }),
  maxResultSizeChars: 100_000,
  description: async () => 'Emits progress until the given number of bytes is out',
  prompt: async () => 'Emits progress until the given number of bytes is out',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async (input, context, _canUseTool, _parent, onProgress) => {
    for (let sent = 0; sent < input.bytes && !context.abortSignal.aborted; sent += CHUNK.length) {
      onProgress?.({ text: CHUNK })
      await nextTurn()
    }
    return { data: 'flooded' }
  },
})
