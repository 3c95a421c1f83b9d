// Builds the gateway into dist/main.js (plus chunks loaded on demand), that runs on plain Node. Running through
// the tsx loader costs a loader thread and its heap for the life of the process (docs/performance.md);
// `npm start` builds first (about a second) and then runs the build.
import { existsSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import { URL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);

await build({
  entryPoints: [new URL('src/main.ts', root).pathname],
  outdir: dist.pathname,
  bundle: true,
  // Code behind a dynamic import (the PostgreSQL store, the Redis limiter) goes to its own
  // chunk, so its packages load only when the configuration asks for them.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Dependencies stay in node_modules (native better-sqlite3, lazily loaded pg and ioredis).
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
// Files the code reads beside itself at run time (new URL(..., import.meta.url)).
await rm(new URL('scripts/', dist), { recursive: true, force: true });
const installerScripts = new URL('src/install/scripts/', root);
if (existsSync(installerScripts)) {
  await cp(installerScripts, new URL('scripts/', dist), { recursive: true });
}
