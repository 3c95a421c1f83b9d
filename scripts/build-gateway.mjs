// Builds the gateway into dist/main.js (plus chunks loaded on demand), that runs on plain Node. Running through
// the tsx loader costs a loader thread and its heap for the life of the process (docs/performance.md);
// `npm start` builds first (about a second) and then runs the build.
import { existsSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import { URL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);

// typebox (683 modules) and kysely (262) loaded from node_modules cost each module's record,
// source text and namespace in the heap for the life of the process; bundled, they are one
// module, and esbuild leaves out what the gateway never imports (docs/performance.md).
const bundledPackages = ['typebox', 'kysely'];

/** Marks every bare import external, except those of the named packages. */
function bundleOnly(packages) {
  return {
    name: 'bundle-only',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith('@')
          ? args.path.split('/').slice(0, 2).join('/')
          : args.path.split('/')[0];
        if (packages.includes(name) && args.kind !== 'entry-point') return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

const dist = new URL('dist/', root);

// Chunk names carry a content hash: drop those of earlier builds.
await rm(new URL('chunks/', dist), { recursive: true, force: true });
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
  // Dependencies stay in node_modules (native better-sqlite3, lazily loaded pg and ioredis),
  // except the pure-ESM libraries made of hundreds of small modules (below).
  plugins: [bundleOnly(bundledPackages)],
  sourcemap: true,
  // Stack traces need the mappings, not the TypeScript text: once the first stack is printed,
  // Node keeps the whole map in memory.
  sourcesContent: false,
  // No comments or indentation in the output: V8 keeps each module's source text for the life
  // of the process, and one non-ASCII character in a comment doubles its size (two bytes a
  // character). Stack traces still point into src/ through the source map.
  minifyWhitespace: true,
  logLevel: 'warning',
});
// Files the code reads beside itself at run time (new URL(..., import.meta.url)).
await rm(new URL('scripts/', dist), { recursive: true, force: true });
const installerScripts = new URL('src/install/scripts/', root);
if (existsSync(installerScripts)) {
  await cp(installerScripts, new URL('scripts/', dist), { recursive: true });
}
