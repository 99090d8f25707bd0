# toolexec: built on the active Node LTS (pinned to an exact release, docs/adr/0138-node-lines-and-pinned-image.md),
# compiled JavaScript at run time, production dependencies only, as the non-root `node` user.

# Build stage: every dependency, TypeScript compiled to dist/.
FROM node:24.21.0-bookworm-slim AS build
# gcc and libc6-dev: the native spawner (native/*.c, docs/adr/0499-the-native-spawner.md) and the
# lstat-mtimes addon (native/addon/, against the image's own include/node, docs/adr/0585);
# both need only the runtime image's glibc.
RUN apt-get update \
  && apt-get install -y --no-install-recommends gcc libc6-dev \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json app.ts server.ts ./
COPY src ./src
COPY plugins ./plugins
COPY routes ./routes
# The console (docs/console.md): bundled by esbuild, typed against the committed OpenAPI types.
COPY console ./console
COPY scripts/build-console.ts scripts/build-spawner.ts ./scripts/
COPY native/*.c native/*.h ./native/
COPY native/addon/*.c ./native/addon/
COPY test/generated ./test/generated
RUN npm run build

# Runtime stage: production dependencies and dist/ only.
FROM node:24.21.0-bookworm-slim

# bubblewrap: the Bash sandbox; ripgrep: the Grep tool's engine; git: read-only git commands in Bash.
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap ripgrep git ca-certificates \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
# dist/ holds the native spawner and the addon too (dist/native/toolexec-spawner, dist/native/addon/).
COPY --from=build /app/dist ./dist

# Listening on every interface requires TOOLEXEC_API_KEYS (the service refuses to start without).
# Every directory the service writes is on the /data volume, owned by `node` (/app is root's).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    TOOLEXEC_WORKSPACE=/data/workspace \
    TOOLEXEC_BLOB_DIR=/data/blobs \
    TOOLEXEC_MEMORY_DIR=/data/memory \
    TOOLEXEC_SECRETS_FILE=/data/secrets.json

RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080

HEALTHCHECK --interval=15s --timeout=3s --start-period=10s \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"

# node runs as PID 1 and handles SIGTERM itself: it drains running calls (see docs/operations.md).
CMD ["node", "dist/server.js"]
