import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { buildWav } from './build-wav.ts';
import {
  credentials,
  postTranscription,
  startTranscriptionBed,
  transcriptionForm,
} from './transcription-test-bed.ts';

const credits = 1_000_000;

describe('transcription under an Idempotency-Key (docs/decisions/0045)', () => {
  const bed = useTestBed(() => startTranscriptionBed());
  const calls = () => bed.upstreams[0]?.requests.length ?? 0;

  it('replays the same file and parts: same bytes, no upstream call, no charge', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const wav = buildWav({ seconds: 10 });
    const first = await postTranscription(
      bed.gateway,
      credentials(token, 'replay-1'),
      transcriptionForm(wav, { model: 'whisper-test', language: 'de' }),
    );
    expect(first.statusCode).toBe(200);
    const before = calls();
    // The same request with its parts in another order and another filename.
    const again = await postTranscription(bed.gateway, credentials(token, 'replay-1'), [
      { name: 'language', value: 'de' },
      { name: 'model', value: 'whisper-test' },
      { name: 'file', value: wav, filename: 'renamed.wav', contentType: 'audio/wav' },
    ]);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(calls()).toBe(before);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(credits - 1_000);
    expect(await bed.spoolFiles()).toEqual([]);
  });

  it('answers 409 for the same key with another file or another part', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const headers = credentials(token, 'reuse-1');
    const wav = buildWav({ seconds: 5 });
    expect((await postTranscription(bed.gateway, headers, transcriptionForm(wav))).statusCode).toBe(
      200,
    );
    const before = calls();
    // One sample differs: the same size and header, another sha256.
    const other = Buffer.from(wav);
    other[other.length - 1] = (other[other.length - 1] as number) ^ 0xff;
    for (const parts of [
      transcriptionForm(other),
      transcriptionForm(wav, { model: 'whisper-test', prompt: 'context' }),
    ]) {
      const changed = await postTranscription(bed.gateway, headers, parts);
      expect(changed.statusCode).toBe(409);
      expect(changed.json().error.code).toBe('idempotency_key_reused');
    }
    expect(calls()).toBe(before);
  });

  it('answers 409 in progress while the first request runs, then replays it', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const headers = credentials(token, 'running-1');
    const parts = transcriptionForm(buildWav({ seconds: 3 }));
    let finish: (value?: unknown) => void = () => undefined;
    bed.upstreams[0]?.replies.push({
      hold: new Promise((resolve) => (finish = resolve)),
      body: { text: 'held answer', usage: { type: 'duration', seconds: 3 } },
    });
    const first = postTranscription(bed.gateway, headers, parts);
    while (calls() === 0 || bed.upstreams[0]?.replies.length !== 0)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const duplicate = await postTranscription(bed.gateway, headers, parts);
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().error.code).toBe('idempotency_in_progress');
    expect(duplicate.headers['retry-after']).toBe('1');
    finish();
    expect((await first).json()).toEqual({ text: 'held answer' });
    const replay = await postTranscription(bed.gateway, headers, parts);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual({ text: 'held answer' });
  });
});
