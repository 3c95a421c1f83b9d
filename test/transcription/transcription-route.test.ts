import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { completionLine } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { buildWav, listInfoChunk } from './build-wav.ts';
import {
  credentials,
  postTranscription,
  startTranscriptionBed,
  transcriptionForm,
  upstreamKey,
} from './transcription-test-bed.ts';

const credits = 1_000_000;

describe('POST /v1/audio/transcriptions', () => {
  const bed = useTestBed(() => startTranscriptionBed());

  it('forwards the exact bytes, maps the model and answers {text}; charges the reported seconds', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const wav = buildWav({ seconds: 90, extraChunks: [listInfoChunk('meeting')] });
    const response = await postTranscription(bed.gateway, credentials(token, 'exact-1'), [
      { name: 'model', value: 'whisper-test' },
      { name: 'language', value: 'en' },
      { name: 'prompt', value: 'A meeting about budgets.' },
      { name: 'response_format', value: 'json' },
      { name: 'file', value: wav, filename: 'meeting.wav', contentType: 'audio/wav' },
    ]);
    expect(response.statusCode).toBe(200);
    const upstream = bed.upstreams[0]?.requests.at(-1);
    expect(upstream?.fileSha256).toBe(createHash('sha256').update(wav).digest('hex'));
    expect(upstream?.fileBytes).toBe(wav.length);
    expect(upstream?.fields).toEqual({
      model: 'whisper-upstream-0',
      language: 'en',
      prompt: 'A meeting about budgets.',
      response_format: 'json',
    });
    expect(upstream?.filename).toBe('meeting.wav');
    expect(upstream?.headers.authorization).toBe(`Bearer ${upstreamKey}`);
    expect(response.json()).toEqual({
      text: `Transcript of ${wav.length} bytes by whisper-upstream-0.`,
    });
    // The fake reports ceil((bytes − 44) / 100) seconds; the LIST chunk makes it 91 s, but the
    // charge is capped at the hold of the header's 90 s × 100 micro-credits.
    const balance = await bed.gateway.store.ledger.getBalance(accountId);
    expect(balance.balance).toBe(credits - 9_000);
    expect(balance.available).toBe(credits - 9_000);
    expect(await bed.spoolFiles()).toEqual([]);
    // The completion log line says what the call came to, as a generation's does.
    const line = completionLine(bed.gateway, response.headers['request-id']);
    expect(line).toMatchObject({
      model: 'whisper-test',
      deployment: 'audio-0/whisper-upstream-0',
      outcome: 'ok',
      costMicroCredits: 9_000,
    });
  });

  it('takes the file before or after the text parts', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const wav = buildWav({ seconds: 2 });
    const response = await postTranscription(
      bed.gateway,
      credentials(token, 'order-1'),
      transcriptionForm(wav),
    );
    expect(response.statusCode).toBe(200);
    expect(bed.upstreams[0]?.requests.at(-1)?.fileSha256).toBe(
      createHash('sha256').update(wav).digest('hex'),
    );
  });
});
