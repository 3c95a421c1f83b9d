#!/usr/bin/env bash
# Restarts every gateway process of this host in turn without failing a request
# (docs/deployment.md, "Rolling restarts"): out of nginx's pool, stopped gracefully, started,
# ready, back in the pool. Usage: rolling-restart.sh [port…] (default 8081 8082 8083).
set -euo pipefail
upstream=/etc/nginx/switchyard-upstream.conf
ports=("$@")
[ ${#ports[@]} -gt 0 ] || ports=(8081 8082 8083)
cp "$upstream" "$upstream.orig"
trap 'cp "$upstream.orig" "$upstream" && nginx -s reload' EXIT

for port in "${ports[@]}"; do
  # nginx reloads gracefully: its old workers finish the requests they carry.
  sed "s/^\(\s*server 127\.0\.0\.1:$port\b[^;]*\);/\1 down;/" "$upstream.orig" >"$upstream"
  nginx -t -q && nginx -s reload
  sleep 2
  # SIGTERM: in-flight requests finish within server.shutdownGraceMs.
  systemctl restart "switchyard@$port"
  for _ in $(seq 1 60); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 1
  done
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null
  cp "$upstream.orig" "$upstream"
  nginx -t -q && nginx -s reload
done
