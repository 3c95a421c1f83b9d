#!/usr/bin/env bash
# CI's check of the container image's build steps without a container engine: builds the image
# root (scripts/build-image-root.sh) into a temporary folder outside the repository, so nothing
# can be found in the repository's node_modules, starts the gateway from there as the
# Dockerfile's CMD does, waits for the health check the image declares, and stops it with
# SIGTERM, which must exit 0.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pid=
cleanup() {
  [ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

scripts/build-image-root.sh "$work/app" >/dev/null
port=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
mkdir -p "$work/data"
(
  cd "$work/app"
  exec env -i PATH="$PATH" HOME="$work" NODE_ENV=production MALLOC_ARENA_MAX=2 \
    HOST=127.0.0.1 PORT="$port" SWITCHYARD_DATA_DIR="$work/data" \
    node --min-semi-space-size=8 --max-semi-space-size=8 --v8-pool-size=1 --heap-growing-percent=50 --liftoff-only --no-allocation-site-pretenuring dist/main.js
) >"$work/gateway.log" 2>&1 &
pid=$!

healthy=
for _ in $(seq 1 60); do
  if node -e "fetch('http://127.0.0.1:$port/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then
    healthy=yes
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
if [ -z "$healthy" ]; then
  echo "the image root's gateway did not become healthy:" >&2
  cat "$work/gateway.log" >&2
  exit 1
fi
(cd "$work/app" && env -i PATH="$PATH" HOME="$work" SWITCHYARD_DATA_DIR="$work/data" \
  node dist/cli/switchyard-cli.js account list >/dev/null)
# The dashboard's pages are built into the image and served from beside dist/main.js.
if ! node -e "fetch('http://127.0.0.1:$port/dashboard').then(async (r) => process.exit(r.ok && (await r.text()).includes('/dashboard/assets/app-') ? 0 : 1), () => process.exit(1))"; then
  echo "the image root's gateway does not serve the dashboard's pages" >&2
  exit 1
fi
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
if [ "$status" -ne 0 ]; then
  echo "the image root's gateway exited $status on SIGTERM:" >&2
  cat "$work/gateway.log" >&2
  exit 1
fi
echo "image root: built, healthy on port $port, serves the dashboard, stopped cleanly"
