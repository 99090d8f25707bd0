// Pins reading and listing a real temp directory through @modelcontextprotocol/server-filesystem over stdio.
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import { CLIENT_INFO, FILESYSTEM_SERVER, findTool, runTool, tempDir } from './mcp-test-helpers.js'

describe('server-filesystem over stdio', () => {
  let manager: McpManager
  let root: string

  beforeAll(async () => {
    root = await realpath(await tempDir('fs'))
    await writeFile(path.join(root, 'notes.txt'), 'first line\nsecond line\n')
    await mkdir(path.join(root, 'sub'))
    manager = createMcpManager({
      servers: { files: { command: process.execPath, args: [FILESYSTEM_SERVER, root] } },
      clientInfo: CLIENT_INFO,
    })
    await manager.ready()
  })

  afterAll(async () => {
    await manager.close()
    await rm(root, { recursive: true, force: true })
  })

  it('reads a file', async () => {
    const read = findTool(manager.tools(), 'mcp__files__read_text_file')
    expect(read.isReadOnly({})).toBe(true)
    const result = await runTool(read, { path: path.join(root, 'notes.txt') })
    expect(result).toEqual({ content: 'first line\nsecond line\n' })
  })

  it('lists a directory', async () => {
    const result = await runTool(findTool(manager.tools(), 'mcp__files__list_directory'), { path: root })
    expect(result.content).toContain('[FILE] notes.txt')
    expect(result.content).toContain('[DIR] sub')
  })

  it('returns the server-reported failure for a path outside the allowed directory as an error result', async () => {
    const result = await runTool(findTool(manager.tools(), 'mcp__files__read_text_file'), { path: '/etc/hostname' })
    expect(result.isError).toBe(true)
    expect(String(result.content)).toMatch(/denied|outside/i)
  })

  it('marks write tools as neither read-only nor concurrency-safe', () => {
    const write = findTool(manager.tools(), 'mcp__files__write_file')
    expect(write.isReadOnly({})).toBe(false)
    expect(write.isConcurrencySafe({})).toBe(false)
  })
})
