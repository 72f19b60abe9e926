# turnbridge in a container: Debian (bookworm) with Node 20, bubblewrap and socat for the agent box (TURNBRIDGE_SANDBOX),
# tini as PID 1 (it forwards SIGTERM to the bridge, which drains, and reaps agent processes),
# a non-root user, the state in the /data volume and the agents' workspace in /workspace.
#   docker build -t turnbridge .
#   docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     --env-file .env -p 3000:3000 -v tb-data:/data -v tb-work:/workspace turnbridge
# (the two security options let bubblewrap make its user namespace; without them agents run unboxed, with a warning)
# With Redis and several replicas: compose.yaml. Details: docs/operations.md#docker.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 ships prebuilt binaries; the compilers build it where none fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts: npm's `prepare` (npm run build) needs the sources and tsc, which the build stage
# has; better-sqlite3's own install script then runs through rebuild.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts \
 && npm rebuild better-sqlite3

# dist/: the one build of src/ that bin/turnbridge.js runs (tsc is a devDependency).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/
COPY bin bin
COPY src src
RUN npm run build

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap socat tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin turnbridge \
 && mkdir -p /data /workspace \
 && chown turnbridge:turnbridge /data /workspace
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
COPY --from=build /app/dist ./dist
USER turnbridge
# HOST=0.0.0.0 so that the port can be published; off loopback the local page asks for its token
# and /metrics for TURNBRIDGE_METRICS_TOKEN (docs/security.md).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 TURNBRIDGE_DATA_DIR=/data TURNBRIDGE_WORKSPACE=/workspace
VOLUME ["/data", "/workspace"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/turnbridge.js", "start"]
