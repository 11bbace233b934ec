# Runplane: one image for all five services, picked by the command, e.g.
#   docker run … runplane node dist/apps/job-router/main.js
#   docker run … runplane node dist/tools/migrate/main.js     (migrations + catalog seed, then exit 0)
# See deploy/README.md. tools/image/assemble.ts reads this file's COPY and RUN lines to assemble the same
# tree without Docker and tools/image/image.spec.ts starts the platform from it, so change them together.

ARG NODE_IMAGE=node:24-bookworm-slim

# Compiles the apps to plain JavaScript (npm run build -> dist/) and generates the Prisma client.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

# Production dependencies only, straight from the lockfile; no install scripts (nothing to compile or download).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --workspaces=false --no-audit --no-fund

# The same dependencies with their JavaScript minified in place: comments and whitespace removed, characters outside
# ASCII escaped, identifiers untouched, a file kept as it is unless its minified form parses to the same program
# (tools/image/minify-modules.mjs). V8 keeps the source of every module a process loads, so an idle service holds
# ~4.5 MB less (deploy/README.md, "Memory"). SWC, a development dependency, comes from the build stage for this
# step only.
FROM ${NODE_IMAGE} AS modules
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/node_modules/@swc ./minify/node_modules/@swc
COPY --from=build /src/tools/image/minify-modules.mjs ./minify/minify-modules.mjs
RUN node minify/minify-modules.mjs node_modules && rm -rf minify

# The S3 engine of network volumes (README "S3 access to network volumes"): versitygw built from the Go module that
# pins it (tools/volume-s3-engine/go), exactly as `npm run s3:build` builds it (tools/image/assemble.ts takes that
# build for this stage). A static binary: nothing of Go reaches the image.
FROM golang:1.26-bookworm AS s3-engine
WORKDIR /engine
COPY tools/volume-s3-engine/go ./
RUN CGO_ENABLED=0 GOTOOLCHAIN=local GOWORK=off GOFLAGS=-mod=readonly go build -trimpath \
    -ldflags "-s -w -X main.Version=v1.8.0 -X main.Build=module -X main.BuildTime=none" \
    -o bin/versitygw github.com/versity/versitygw/cmd/versitygw

FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system --gid 10001 runplane \
  && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin runplane
# The root filesystem is read-only in the cluster: anything a process writes goes to /tmp. A 2 MB young
# generation (V8's default grows it to tens of MB) keeps an idle service's resident memory down; raise it
# through NODE_OPTIONS for a job-router under heavy load (deploy/README.md, "Memory"). glibc's malloc otherwise
# raises its mmap and trim thresholds as blocks are freed and keeps the freed memory; fixed at 128 KiB it hands
# large blocks back to the kernel (~5 MB less per idle service).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MALLOC_TRIM_THRESHOLD_=131072 \
    HOME=/tmp \
    TMPDIR=/tmp \
    HOST=0.0.0.0 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    CHECKPOINT_DISABLE=1 \
    VOLUME_S3_ENGINE_BIN=bin/versitygw
WORKDIR /app
COPY --from=modules /app/node_modules ./node_modules
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/dist ./dist
COPY --from=build /src/prisma/schema.prisma ./prisma/schema.prisma
COPY --from=build /src/prisma/migrations ./prisma/migrations
COPY --from=build /src/prisma.config.ts ./prisma.config.ts
COPY --from=build /src/tools/prisma-schema-engine/schema-engine.mjs ./tools/prisma-schema-engine/schema-engine.mjs
COPY --from=build /src/tools/prisma-schema-engine/lib ./tools/prisma-schema-engine/lib
COPY --from=build /src/config/catalog.example.json ./config/catalog.example.json
COPY --from=s3-engine /engine/bin/versitygw ./bin/versitygw
USER 10001:10001
EXPOSE 8080 8081 8082 8083 8084
# tini forwards SIGTERM to Node and reaps children; each service shuts down gracefully on SIGTERM.
ENTRYPOINT ["/usr/bin/tini", "--"]
# V8 flags Node refuses in NODE_OPTIONS, so they are part of the command (the chart's args repeat them, from its
# nodeFlags value): V8's memory-saving mode, no Maglev tier, and the bytecode and baseline code of functions not run
# for two full collections dropped (compiled again if called). ~20 MB less per idle service (deploy/README.md,
# "Memory").
CMD ["node", "--optimize-for-size", "--no-maglev", "--bytecode-old-age=2", "--flush-baseline-code", "dist/apps/gateway/main.js"]
