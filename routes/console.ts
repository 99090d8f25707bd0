import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { defaultConsoleDirectory, loadConsoleAssets } from '../src/console/console-assets.js'
import { CONSOLE_HEADERS } from '../src/console/console-headers.js'
import { ApiError } from '../src/errors/api-error.js'

/**
 * The console (docs/console.md): built files under /console/assets/, and the page itself for
 * every other path under /console, so a link such as an ask URL opens the view it names. The
 * files hold no secret: the page asks for a key and sends it with each API request.
 */
export const consoleRoutes: FastifyPluginAsyncZod<{ directory?: string | undefined }> = async (app, options) => {
  const assets = loadConsoleAssets(options.directory ?? defaultConsoleDirectory())
  if (assets === undefined) app.log.warn('the console is not built (run `npm run build`): /console answers 503')

  const serve = (name: string, ifNoneMatch: string | undefined, reply: FastifyReply) => {
    if (assets === undefined) throw new ApiError('console_not_built', 'The console was not built: run `npm run build`')
    const asset = assets.get(name)
    if (asset === undefined) throw new ApiError('route_not_found', `No console file ${JSON.stringify(name)}`)
    reply.headers(CONSOLE_HEADERS).header('etag', asset.etag).type(asset.contentType)
    return ifNoneMatch === asset.etag ? reply.code(304).send() : reply.send(asset.body)
  }

  app.get(
    '/console/assets/:name',
    { schema: { hide: true, params: z.object({ name: z.string() }) } },
    (request, reply) => serve(request.params.name, request.headers['if-none-match'], reply),
  )
  for (const url of ['/console', '/console/*']) {
    app.get(url, { schema: { hide: true } }, (request, reply) =>
      serve('index.html', request.headers['if-none-match'], reply),
    )
  }
}
