#!/usr/bin/env bash
# Builds what the container image holds into DEST: the gateway and the operator CLI built as
# `npm run build` builds them (DEST/dist/), package.json, the example configuration, and only the
# production packages of the installed node_modules (none of the devDependencies). The Dockerfile
# runs it in its build stage; CI runs it too (scripts/check-image-root.sh), so neither can rot
# unnoticed. Needs `npm ci` to have run first. Usage: scripts/build-image-root.sh DEST
set -euo pipefail
dest=${1:?usage: scripts/build-image-root.sh DEST}
cd "$(dirname "$0")/.."

rm -rf "$dest"
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
node scripts/build-gateway.mjs --outdir="$dest/dist"
cp package.json package-lock.json switchyard.config.json "$dest/"

# The lockfile marks every package only development needs (`dev`, `devOptional`); each of the
# others is copied without its own node_modules folder, whose packages are entries of their own.
node --input-type=module -e '
  import { readFileSync, existsSync } from "node:fs";
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (!location.startsWith("node_modules/") || entry.dev || entry.devOptional) continue;
    if (entry.link || !existsSync(location)) continue;
    console.log(location);
  }
' | while read -r package; do
  mkdir -p "$dest/$package"
  (cd "$package" && tar --exclude=./node_modules -cf - .) | (cd "$dest/$package" && tar -xf -)
done
