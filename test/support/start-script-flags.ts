import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);

/** A file of the repository, as text. */
export function repositoryFile(relative: string): string {
  return readFileSync(new URL(relative, root), 'utf8');
}

/** The Node flags between `node` and the entry file in a command line. */
export function nodeFlagsOf(command: string, entry: RegExp): string[] {
  const match = new RegExp(`\\bnode ((?:--\\S+ )*)${entry.source}`).exec(command);
  if (match === null) throw new Error(`no "node … ${entry.source}" in: ${command}`);
  return (match[1] as string).trim().split(' ');
}

/** The Node flags `npm start` runs the gateway's build with (package.json, `scripts.start`). */
export function startScriptNodeFlags(): string[] {
  const manifest = JSON.parse(repositoryFile('package.json')) as { scripts: { start: string } };
  return nodeFlagsOf(manifest.scripts.start, /dist\/main\.js/);
}
