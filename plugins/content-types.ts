import fp from 'fastify-plugin'

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
      parseJson(request, text, done)
    })
  },
  { name: 'content-types' },
)
