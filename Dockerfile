# syntax=docker/dockerfile:1
#
# One image for every process of the service (see docs/deploy.md):
#   API      node --import tsx src/bin/api.ts      (the default CMD)
#   worker   node --import tsx src/bin/worker.ts   (docker-compose.yml overrides the command)
#   migrate  npm run migrate                         (one-shot)
#
# Entry points run TypeScript through tsx (a runtime dependency), as in development. `node --import tsx`
# keeps node itself as the process that receives SIGTERM (no npm or tsx wrapper process in between),
# and tini as PID 1 forwards signals and reaps zombies.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: all dependencies, then the production workflow bundle -----------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
COPY migrations ./migrations
# Writes dist/workflow-bundle.js; the worker loads it when present instead of bundling at start-up.
RUN npm run build:workflows

# ---- deps: runtime dependencies only --------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime ----------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false
WORKDIR /app
# Everything under /app belongs to root and is only readable by the service user: the code cannot be
# changed by the process that runs it. tsx keeps its compile cache under /tmp.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
COPY migrations ./migrations
COPY --from=build /app/dist ./dist
# The bank channel's outbox and inbox (docs/bank.md), the worker's to write: a named volume mounted
# here starts with this ownership.
RUN mkdir -p /var/lib/payments/outbox /var/lib/payments/inbox && chown -R node:node /var/lib/payments
USER node
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "src/bin/api.ts"]
