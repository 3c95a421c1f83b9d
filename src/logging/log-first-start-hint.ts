import type { FastifyBaseLogger } from 'fastify';
import { hintField } from './create-log-stream.ts';

/**
 * The first start on an empty database names the command that creates the first token. It is
 * marked (`"hint": true`) so a terminal shows it highlighted and a log search can find it.
 */
export function logFirstStartHint(log: FastifyBaseLogger): void {
  log.info(
    { [hintField]: true },
    'Empty database. Create the first account, credits and client token with: npm run cli -- bootstrap --name <your-name> --credits 10',
  );
}
