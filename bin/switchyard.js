#!/usr/bin/env node
// The operator CLI, run from its build (dist/cli/), which is made first when it is missing or
// older than the sources: compiling TypeScript on every command took seconds (docs/decisions/0113).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const built = new URL('../dist/cli/switchyard-cli.js', import.meta.url);

/** Modification time in ms, or -1 when the file is missing. */
function modifiedAt(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** Whether any source the build reads (tests aside) changed after `since`. */
function changedSince(since) {
  const sources = new URL('../src/', import.meta.url);
  for (const entry of readdirSync(sources, { recursive: true })) {
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
    if (modifiedAt(new URL(entry, sources)) > since) return true;
  }
  const inputs = ['../scripts/build-gateway.mjs', '../package.json', '../package-lock.json'];
  return inputs.some((input) => modifiedAt(new URL(input, import.meta.url)) > since);
}

const builtAt = modifiedAt(built);
if (builtAt < 0 || changedSince(builtAt)) {
  execFileSync(process.execPath, ['scripts/build-gateway.mjs', '--cli-only'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
await import(built.href);
