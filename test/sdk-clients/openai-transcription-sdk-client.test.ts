import { createHash } from 'node:crypto';

import OpenAI, { toFile } from 'openai';
import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { buildWav } from '../transcription/build-wav.ts';
import { startTranscriptionBed } from '../transcription/transcription-test-bed.ts';

describe('the official openai SDK against POST /v1/audio/transcriptions', () => {
  const bed = useTestBed(async () => {
    const started = await startTranscriptionBed();
    await started.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    return started;
  });

  it('transcribes a WAV through audio.transcriptions.create, and replays it under its key', async () => {
    const address = bed.gateway.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = new OpenAI({
      apiKey: token,
      baseURL: `http://127.0.0.1:${address.port}/v1`,
      maxRetries: 0,
    });
    const wav = buildWav({ seconds: 12 });
    const create = async () =>
      client.audio.transcriptions
        .create(
          {
            file: await toFile(wav, 'call.wav', { type: 'audio/wav' }),
            model: 'whisper-test',
            language: 'en',
            response_format: 'json',
          },
          { headers: { 'Idempotency-Key': 'sdk-call-1' } },
        )
        .withResponse();
    const { data, response } = await create();
    expect(data.text).toBe(`Transcript of ${wav.length} bytes by whisper-upstream-0.`);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    const upstream = bed.upstreams[0]?.requests.at(-1);
    expect(upstream?.fileSha256).toBe(createHash('sha256').update(wav).digest('hex'));
    expect(upstream?.filename).toBe('call.wav');
    const calls = bed.upstreams[0]?.requests.length;
    const again = await create();
    expect(again.data.text).toBe(data.text);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(bed.upstreams[0]?.requests.length).toBe(calls);
  });
});
