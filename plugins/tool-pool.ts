import fp from 'fastify-plugin'
import { createToolPool, type ToolPoolOptions } from '../src/registry/tool-pool.js'

declare module 'fastify' {
  interface FastifyInstance {
    toolPool: ReturnType<typeof createToolPool>
  }
}

/** The tool pool per permission context: what runs execute and what GET /v1/tools lists. */
export const toolPoolPlugin = fp<ToolPoolOptions>(
  async (app, options) => {
    app.decorate('toolPool', createToolPool(options))
  },
  { name: 'tool-pool' },
)
