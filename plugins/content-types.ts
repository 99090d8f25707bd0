import fp from 'fastify-plugin'
import { ApiError } from '../src/errors/api-error.js'
import { exceedsJsonDepth, jsonDepthMessage } from '../src/messages/json-nesting-depth.js'

/** Bodies are JSON only: anything else is a 415 rather than a confusing schema error. */
export const contentTypesPlugin = fp(
  async (app) => {
    app.removeContentTypeParser('text/plain')
    // An empty JSON body means "no body": `curl -X POST -H 'content-type: application/json'` on a
    // route whose body is optional (cancel, sessions) must not be a 400. The rest is fastify's
    // own parser, prototype-poisoning checks included.
    const parseJson = app.getDefaultJsonParser('error', 'error')
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = String(body)
      if (text.trim() === '') return done(null, undefined)
      // Before the parse: nothing recursive may ever see a body nested too deep (ADR 0095).
      if (exceedsJsonDepth(text, app.config.maxInputDepth)) {
        return done(new ApiError('input_too_deep', jsonDepthMessage('The request body', app.config.maxInputDepth)))
      }
      parseJson(request, text, done)
    })
  },
  { name: 'content-types', dependencies: ['config'] },
)
