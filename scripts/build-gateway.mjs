// Builds the gateway into dist/main.js (plus chunks loaded on demand) and the operator CLI into
// dist/cli/, both run on plain Node. Running through the tsx loader costs a loader thread and its
// heap for the life of the process, and seconds of compiling on every CLI command
// (docs/performance.md, docs/decisions/0113); `npm start` builds first (about a second) and then
// runs the build. `--cli-only` rebuilds the CLI alone (bin/switchyard.js does when it is stale).
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import process from 'node:process';
import path from 'node:path';
import { pathToFileURL, URL } from 'node:url';
import { build } from 'esbuild';
import { buildDashboard } from './build-dashboard.mjs';

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

// `--outdir=PATH` builds elsewhere than dist/ (a container image's root, a test's own copy). The
// build imports its dependencies at run time from the node_modules above it: put one there
// (scripts/build-image-root.sh) or build to a folder inside the repository.
const outdirArgument = process.argv.find((argument) => argument.startsWith('--outdir='));
const dist =
  outdirArgument === undefined
    ? new URL('dist/', root)
    : pathToFileURL(`${path.resolve(outdirArgument.slice('--outdir='.length))}/`);

/**
 * The operator CLI is built into a folder of its own, `dist/cli/`: `bin/switchyard.js` rebuilds
 * it alone (`--cli-only`) when the sources are newer, which must never remove the chunks a
 * running gateway may still load from `dist/chunks/`.
 */
const cliDist = new URL('cli/', dist);
const cliOnly = process.argv.includes('--cli-only');

const common = {
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
  // For `node --enable-source-maps` when debugging (docs/decisions/0090); the mappings only, not
  // the TypeScript text.
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
};

if (!cliOnly) {
  // Chunk names carry a content hash: drop those of earlier builds.
  await rm(new URL('chunks/', dist), { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: [new URL('src/main.ts', root).pathname],
    outdir: dist.pathname,
  });
}
await rm(cliDist, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { 'switchyard-cli': new URL('src/cli/run-operator-cli.ts', root).pathname },
  outdir: cliDist.pathname,
});
// V8 keeps each module's source text for the life of the process, one byte a character only if
// every character is ASCII. esbuild escapes non-ASCII in strings but keeps comments as written, and
// one section sign (U+00A7) in a comment doubled the build's resident text; replaced one for one (a
// character outside the BMP by two), so columns, and the source map, stay right.
for (const file of await readdir(cliOnly ? cliDist : dist, { recursive: true })) {
  if (!file.endsWith('.js')) continue;
  const path = new URL(file, cliOnly ? cliDist : dist);
  const text = await readFile(path, 'utf8');
  if (/[\u0080-\uffff]/.test(text)) await writeFile(path, text.replace(/[\u0080-\uffff]/g, '?'));
}
// Files the code reads beside itself at run time (new URL(..., import.meta.url)).
if (!cliOnly) {
  await rm(new URL('scripts/', dist), { recursive: true, force: true });
  const installerScripts = new URL('src/install/scripts/', root);
  if (existsSync(installerScripts)) {
    await cp(installerScripts, new URL('scripts/', dist), { recursive: true });
  }
  // The dashboard's pages, served under /dashboard from beside main.js.
  await buildDashboard(new URL('dashboard/', dist));
}
