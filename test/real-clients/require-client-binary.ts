import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/**
 * The real clients are this folder's own dev dependencies (its package.json), so that
 * `npm ci && npm start` never installs them; the test command installs them with
 * `npm ci --prefix test/real-clients`.
 */
export const clientsFolder = fileURLToPath(new URL('./', import.meta.url));

/** The command that installs the clients, for the messages that name it. */
export const installClientsCommand = 'npm ci --prefix test/real-clients';

/** Paths of the installed clients, relative to `clientsFolder`. */
export const clientBinaries = {
  claudeCode: 'node_modules/.bin/claude',
  codex: 'node_modules/.bin/codex',
  /** Codex's JavaScript launcher, run with this Node (it starts the native binary). */
  codexLauncher: 'node_modules/@openai/codex/bin/codex.js',
} as const;

/** Where a client is (or would be) installed: `relativePath` under `clientsFolder`. */
export function clientPath(relativePath: string): string {
  return path.join(clientsFolder, relativePath);
}

/** The absolute path of an installed client; a missing one throws, naming the command. */
export function requireClientBinary(relativePath: string, root = clientsFolder): string {
  const binary = path.join(root, relativePath);
  if (!existsSync(binary)) {
    throw new Error(
      `Real-client tests: ${binary} is missing. Install @anthropic-ai/claude-code and ` +
        `@openai/codex with: ${installClientsCommand}`,
    );
  }
  return binary;
}

/** What to do with tests that run a client: run them, skip them loudly, or fail (CI). */
export type ClientTestMode = 'run' | 'skip' | 'fail';

export function chooseClientTestMode(
  relativePath: string,
  options: { root?: string; env?: NodeJS.ProcessEnv } = {},
): ClientTestMode {
  if (existsSync(path.join(options.root ?? clientsFolder, relativePath))) return 'run';
  // CI must prove the clients work: a missing client fails there instead of skipping.
  const ci = (options.env ?? process.env).CI;
  return ci !== undefined && ci !== '' && ci !== 'false' ? 'fail' : 'skip';
}

/**
 * A `describe` whose tests run the client at `relativePath`. Outside CI, when the client is not
 * installed, its tests are skipped with a warning that says so; under CI they fail.
 */
export function describeWithClient(
  title: string,
  relativePath: string,
  body: () => void,
  root = clientsFolder,
): void {
  const mode = chooseClientTestMode(relativePath, { root });
  if (mode === 'run') {
    describe.sequential(title, body);
  } else if (mode === 'fail') {
    describe(title, () => {
      it('finds the installed client, which CI requires', () => {
        requireClientBinary(relativePath, root);
      });
    });
  } else {
    warnSkipped(title, relativePath, root);
    describe.skip(title, body);
  }
}

/**
 * An `it` for tests that run the client at `relativePath`, skipped or failed like
 * `describeWithClient` when the client is not installed.
 */
export function itWithClient(
  relativePath: string,
): (title: string, body: () => Promise<void>, timeoutMs?: number) => void {
  const mode = chooseClientTestMode(relativePath);
  return (title, body, timeoutMs) => {
    if (mode === 'run') {
      it(title, body, timeoutMs);
    } else if (mode === 'fail') {
      it(title, () => {
        requireClientBinary(relativePath);
      });
    } else {
      warnSkipped(title, relativePath, clientsFolder);
      it.skip(title, body);
    }
  };
}

function warnSkipped(title: string, relativePath: string, root: string): void {
  console.warn(
    `\n*** SKIPPED "${title}": ${path.join(root, relativePath)} is not installed. ` +
      `Run ${installClientsCommand} to run the real-client tests. ***\n`,
  );
}
