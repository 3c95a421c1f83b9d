# The gateway as a container (docs/deployment.md, "Container image"). The build steps are
# scripts/build-image-root.sh, which CI also runs and starts (scripts/check-image-root.sh).
FROM node:20-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 compiles itself when no prebuilt binary matches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN scripts/build-image-root.sh /image

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
  MALLOC_ARENA_MAX=2 \
  HOST=0.0.0.0 \
  PORT=8080 \
  SWITCHYARD_DATA_DIR=/var/lib/switchyard
WORKDIR /app
COPY --from=build /image/ /app/
RUN install -d -o node -g node /var/lib/switchyard
# The image's own user, without a shell's rights on /app.
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The flags of `npm start` (docs/operations.md, "Running"). Node is PID 1 and the gateway handles
# SIGTERM itself, so `docker stop` drains in-flight requests (docs/operations.md, "Shutdown").
CMD ["node", "--min-semi-space-size=8", "--max-semi-space-size=8", "--v8-pool-size=1", "--heap-growing-percent=50", "--liftoff-only", "--no-allocation-site-pretenuring", "dist/main.js"]
