# pgkube API server. Build:  docker build -t pgkube .
# Run (embedded PostgreSQL in the volume):  docker run -p 6443:6443 -v pgkube-data:/data pgkube
# With your own PostgreSQL:  docker run -p 6443:6443 -e DATABASE_URL=postgres://… -v pgkube-data:/data pgkube
# The admin kubeconfig is written to /data/admin.kubeconfig (see docs/operations.md, "Containers").

# Stage 1: every dependency, and the TypeScript compiled to dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts here: compiling needs none (the PostgreSQL binaries are set up in the final stage).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
COPY proto ./proto
RUN npm run build

# Stage 2: production dependencies and the compiled output only (no sources, no TypeScript, no tsx).
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The data dir (certificates, the admin kubeconfig, the embedded PostgreSQL) belongs to the
# unprivileged user the server runs as; the embedded PostgreSQL runs as that user too.
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
ENV BIND_ADDRESS=0.0.0.0 DATA_DIR=/data TLS_EXTRA_SANS=localhost
VOLUME /data
EXPOSE 6443
# Healthy once /readyz answers 200 (it fails while the database is unreachable and during shutdown).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/src/healthcheck-cli.js"]
# The server is PID 1 and handles SIGTERM itself: a graceful stop, then the embedded PostgreSQL.
# docker stop waits 10 s by default; give it at least --shutdown-delay-duration plus a few seconds
# (docker stop -t / stop_grace_period) when you set that flag.
STOPSIGNAL SIGTERM
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
