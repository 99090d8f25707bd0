# toolexec: node:20-slim, production dependencies only, TypeScript run directly with tsx.
FROM node:20-slim

# bubblewrap: the Bash sandbox; ripgrep: the Grep tool's engine; git: read-only git commands in Bash.
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap ripgrep git ca-certificates \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY tsconfig.json app.ts server.ts ./
COPY src ./src
COPY plugins ./plugins
COPY routes ./routes

# Listening on every interface requires TOOLEXEC_API_KEYS (the service refuses to start without).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    TOOLEXEC_WORKSPACE=/data/workspace \
    TOOLEXEC_BLOB_DIR=/data/blobs

RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080

HEALTHCHECK --interval=15s --timeout=3s --start-period=10s \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"

# node runs as PID 1 and handles SIGTERM itself: it drains running calls (see docs/operations.md).
CMD ["node", "--import", "tsx", "server.ts"]
