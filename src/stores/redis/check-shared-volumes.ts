import type { Redis } from 'ioredis'
import { redisKeys } from './redis-keys.js'
import { VOLUME_MARKER, volumeMarker } from './volume-marker.js'

/**
 * Instances on one Redis must share TOOLEXEC_WORKSPACE and TOOLEXEC_BLOB_DIR: each directory
 * holds a marker id, the first instance records the pair in Redis, and every later one compares.
 * Returns what does not match (the variable and why), or undefined.
 */
export async function checkSharedVolumes(
  redis: Redis,
  directories: { workspace: string; blobDir: string },
): Promise<{ variable: string; problem: string } | undefined> {
  const mine = {
    workspace: await volumeMarker(directories.workspace),
    blobDir: await volumeMarker(directories.blobDir),
  }
  const previous = await redis.set(redisKeys.volumes, JSON.stringify(mine), 'NX', 'GET')
  if (previous === null) return undefined
  const recorded = JSON.parse(previous) as typeof mine
  for (const [key, variable] of [
    ['workspace', 'TOOLEXEC_WORKSPACE'],
    ['blobDir', 'TOOLEXEC_BLOB_DIR'],
  ] as const) {
    if (recorded[key] !== mine[key]) {
      return {
        variable,
        problem: `${directories[key]} is not the directory the other instances on this Redis use (its ${VOLUME_MARKER} is ${mine[key]}, theirs ${recorded[key]}): mount the same shared volume on every instance`,
      }
    }
  }
  return undefined
}
