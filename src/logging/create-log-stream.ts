import type { DestinationStream } from 'pino';

/** The marker field of lines a person starting the gateway should not miss. */
export const hintField = 'hint';

/**
 * Where the gateway's pino logger writes. A terminal gets pretty, coloured lines
 * (docs/operations.md); anything else (a pipe, a file, a log collector) gets pino's JSON lines, so
 * `undefined` is returned and pino writes to standard output itself.
 *
 * pino-pretty runs as a synchronous destination stream in this process, not as a worker
 * transport: the bundled `dist/main.js` then needs no transport file beside it, and a line is
 * written before the process can exit. It receives lines after pino's redaction, so credential
 * paths are already censored.
 */
export async function createLogStream(
  stdout: { isTTY?: boolean },
  options: { env?: NodeJS.ProcessEnv; destination?: number | NodeJS.WritableStream } = {},
): Promise<DestinationStream | undefined> {
  if (stdout.isTTY !== true) return undefined;
  const env = options.env ?? process.env;
  // Loaded only for a terminal: a production process never pays for the prettifier.
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    destination: options.destination ?? 1,
    sync: true,
    // https://no-color.org: any non-empty NO_COLOR turns colours off.
    colorize: (env.NO_COLOR ?? '') === '',
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: `pid,hostname,${hintField}`,
    messageFormat: (log, messageKey, _levelLabel, { colors }) => {
      const message = String(log[messageKey] ?? '');
      return log[hintField] === true ? colors.bold(colors.cyan(`>>> ${message} <<<`)) : message;
    },
  });
}
