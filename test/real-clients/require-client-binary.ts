import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The absolute path of a client installed as a dev dependency. A missing client fails the suite
 * with what to install; the suite never skips it.
 */
export function requireClientBinary(relativePath: string, root = repositoryRoot): string {
  const binary = path.join(root, relativePath);
  if (!existsSync(binary)) {
    throw new Error(
      `Real-client suite: ${binary} is missing. The suite needs the dev dependencies ` +
        '@anthropic-ai/claude-code and @openai/codex installed (npm ci).',
    );
  }
  return binary;
}
