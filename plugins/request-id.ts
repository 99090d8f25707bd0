import fp from 'fastify-plugin'

/** Every response carries its request's id (`x-request-id`, taken from the request or generated). */
export const requestIdPlugin = fp(
  async (app) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id)
      done(null, payload)
    })
  },
  { name: 'request-id' },
)
