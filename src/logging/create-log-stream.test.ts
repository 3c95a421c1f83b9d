import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { composeGateway } from '../compose.ts';
import { parseConfig } from '../config/load-config.ts';
import { createLogStream } from './create-log-stream.ts';
import { logFirstStartHint } from './log-first-start-hint.ts';

const escape = '\u001b[';

/** What a gateway logging through `createLogStream` prints for a few typical lines. */
async function printedLines(stdout: { isTTY?: boolean }, env: NodeJS.ProcessEnv = {}) {
  let printed = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      printed += chunk.toString('utf8');
      callback();
    },
  });
  const stream = await createLogStream(stdout, { env, destination });
  if (stream === undefined) return undefined;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-log-'));
  const gateway = await composeGateway(parseConfig({ dataDir }), {
    env: {},
    logger: { level: 'info', stream },
  });
  try {
    logFirstStartHint(gateway.app.log);
    gateway.app.log.info({ headers: { authorization: 'Bearer sy_header_secret' } }, 'a request');
    await gateway.app.inject({ url: '/v1/models?api_key=sy_query_secret' });
    // The prettifier hands lines on through a stream pipeline: let it drain.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return printed.split('\n').filter((line) => line !== '');
}

describe('createLogStream', () => {
  it('leaves anything but a terminal to pino, which writes JSON lines', async () => {
    expect(await createLogStream({})).toBeUndefined();
    expect(await createLogStream({ isTTY: false })).toBeUndefined();
  });

  it('prints pretty, coloured lines to a terminal, with the first-start hint standing out', async () => {
    const lines = (await printedLines({ isTTY: true })) ?? [];
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(() => JSON.parse(line)).toThrow();
    expect(lines.some((line) => line.includes(escape))).toBe(true);
    const hint = lines.find((line) => line.includes('npm run cli -- bootstrap'));
    expect(hint).toContain('>>> Empty database.');
    expect(hint).toContain(`${escape}1m`);
    // The marker shows as the highlight, not as a field.
    expect(hint).not.toContain('hint:');
    expect(lines.find((line) => line.includes('a request'))).toBeDefined();
  });

  it('still redacts credentials in pretty lines', async () => {
    const printed = ((await printedLines({ isTTY: true })) ?? []).join('\n');
    expect(printed).toContain('[Redacted]');
    expect(printed).toContain('/v1/models?api_key=…');
    expect(printed).not.toContain('sy_header_secret');
    expect(printed).not.toContain('sy_query_secret');
  });

  it('drops the colours when NO_COLOR is set', async () => {
    const lines = (await printedLines({ isTTY: true }, { NO_COLOR: '1' })) ?? [];
    expect(lines.join('\n')).toContain('>>> Empty database.');
    expect(lines.join('\n')).not.toContain(escape);
  });
});
