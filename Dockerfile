# One image for both processes: the default command is the api (which, alone, also starts the
# projector and keeps SQLite files under /data); `node dist/apps/projector/src/main.js` runs the
# projector. docker-compose.yml runs them as two containers against EventStoreDB and MongoDB.
FROM node:22-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 is compiled from source (.prebuild-installrc), against this Node's headers.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .prebuild-installrc ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps apps
COPY libs libs
COPY bench bench
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 SVC_DATA_DIR=/data
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
# The embedded mode's data directory, owned by the user the processes run as; a volume, so the event
# log outlives the container. (The node user's uid is 1000 in the official images.)
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
# Slim images have no curl; Node 22 has fetch. This checks the api (the default command) on /readyz:
# healthy while it can serve (stores reachable, configuration applied). Its projector child being down
# does not make the container unhealthy: the api restarts the child itself, and /readyz reports it
# (`"projector": "not running"`, status `degraded`). A container running the projector sets
# PROJECTOR_PORT and overrides the check (see docker-compose.yml).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/apps/api/src/main.js"]
