import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { startTranscriptionBed } from '../transcription/transcription-test-bed.ts';
import type { RefusedUploadOutcome, RefusedUploadPlan } from './send-refused-uploads-child.ts';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./send-refused-uploads-child.ts', import.meta.url));

/**
 * A request refused from its headers is answered before its body arrives. The official SDK is
 * still writing that body when the answer comes: it must read the answer, never a reset
 * connection (docs/decisions/0110). Each refusal is repeated, since a reset only wins a race.
 */
describe('the openai SDK reads the answer to a request refused before its body', () => {
  const bed = useTestBed(async () => {
    const started = await startTranscriptionBed();
    await started.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    return started;
  });
  const repeats = 10;
  // Larger than the sockets' buffers, so the client is still writing when the answer comes.
  const bodyBytes = 8 * 1024 * 1024;

  async function callFromOwnProcess(
    plan: Omit<RefusedUploadPlan, 'baseURL' | 'repeats' | 'bodyBytes'>,
  ): Promise<RefusedUploadOutcome[]> {
    const address = bed.gateway.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    const full: RefusedUploadPlan = {
      ...plan,
      baseURL: `http://127.0.0.1:${address.port}/v1`,
      repeats,
      bodyBytes,
    };
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      script,
      JSON.stringify(full),
    ]);
    return JSON.parse(stdout) as RefusedUploadOutcome[];
  }

  it('reads 400 invalid_header for a transcription without Idempotency-Key', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const outcomes = await callFromOwnProcess({ apiKey: token, call: 'transcription-without-key' });
    expect(outcomes).toEqual(Array(repeats).fill({ status: 400, code: 'invalid_header' }));
  });

  it('reads 400 unsupported_audio_format for a transcription of a file that is not WAV', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const outcomes = await callFromOwnProcess({ apiKey: token, call: 'transcription-not-wav' });
    expect(outcomes).toEqual(
      Array(repeats).fill({ status: 400, code: 'unsupported_audio_format' }),
    );
  });

  it('reads 401 for a chat completion with a bad token and a large body', async () => {
    const outcomes = await callFromOwnProcess({ apiKey: 'sy_not-a-real-token', call: 'chat' });
    expect(outcomes).toEqual(Array(repeats).fill({ status: 401, code: 'malformed_token' }));
  });
});
