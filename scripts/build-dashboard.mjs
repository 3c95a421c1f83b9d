// Builds the dashboard's pages (web/dashboard/) into <outdir>/: index.html and, under assets/, one
// minified script and one stylesheet whose names carry a content hash, so the server may let
// browsers keep them for a year and index.html (never cached) names the current ones
// (docs/decisions/0171). Run alone: `node scripts/build-dashboard.mjs --outdir=PATH`; the
// gateway's build calls `buildDashboard` for dist/dashboard/.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const source = new URL('web/dashboard/', root);

/** Builds into `outdir` (a file URL ending in `/`); the sizes of what it wrote, in bytes. */
export async function buildDashboard(outdir) {
  const assets = new URL('assets/', outdir);
  // Hashed names change with every edit: drop those of earlier builds.
  await rm(outdir, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  const result = await build({
    entryPoints: { app: fileURLToPath(new URL('src/main.tsx', source)) },
    outdir: fileURLToPath(assets),
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // Preact's development checks are left out of what browsers download.
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    absWorkingDir: fileURLToPath(root),
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const stylesheet = outputs.find((file) => file.endsWith('.css'));
  if (script === undefined || stylesheet === undefined) {
    throw new Error('The dashboard build wrote no script or no stylesheet.');
  }
  const template = await readFile(new URL('index.html', source), 'utf8');
  const html = template.replace('%SCRIPT%', script).replace('%STYLESHEET%', stylesheet);
  await writeFile(new URL('index.html', outdir), html);
  // Compressed once here rather than on every request: the server sends the .gz copy to
  // browsers that accept gzip.
  for (const file of [script, stylesheet]) {
    const bytes = await readFile(new URL(file, assets));
    await writeFile(new URL(`${file}.gz`, assets), gzipSync(bytes, { level: 9 }));
  }
  return Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([file, output]) => [
      path.basename(file),
      output.bytes,
    ]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outdirArgument = process.argv.find((argument) => argument.startsWith('--outdir='));
  const outdir =
    outdirArgument === undefined
      ? new URL('dist/dashboard/', root)
      : pathToFileURL(`${path.resolve(outdirArgument.slice('--outdir='.length))}/`);
  const sizes = await buildDashboard(outdir);
  for (const [file, bytes] of Object.entries(sizes))
    process.stdout.write(`${file} ${bytes} bytes\n`);
}
