/**
 * The official openai SDK in a process of its own, sending large bodies the gateway refuses from
 * their headers. In the gateway's own process the race that resets such a connection is hidden:
 * both ends share one event loop. argv[2] is a JSON `RefusedUploadPlan`; the script prints one
 * JSON line: per call, the status and error code the SDK read, or the connection error it met.
 */
import OpenAI, { toFile } from 'openai';

import { buildWav } from '../transcription/build-wav.ts';

export interface RefusedUploadPlan {
  baseURL: string;
  apiKey: string;
  call: 'transcription-without-key' | 'transcription-not-wav' | 'chat';
  bodyBytes: number;
  repeats: number;
}

export interface RefusedUploadOutcome {
  status?: number;
  code?: string | null;
  connectionError?: string;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as RefusedUploadPlan;
const openai = new OpenAI({ apiKey: plan.apiKey, baseURL: plan.baseURL, maxRetries: 0 });

async function callOnce(attempt: number): Promise<unknown> {
  if (plan.call === 'chat') {
    return openai.chat.completions.create({
      model: 'any-model',
      messages: [{ role: 'user', content: 'x'.repeat(plan.bodyBytes) }],
    });
  }
  if (plan.call === 'transcription-without-key') {
    const wav = Buffer.concat([buildWav({ seconds: 1 }), Buffer.alloc(plan.bodyBytes)]);
    return openai.audio.transcriptions.create({
      file: await toFile(wav, 'call.wav', { type: 'audio/wav' }),
      model: 'whisper-test',
    });
  }
  return openai.audio.transcriptions.create(
    {
      file: await toFile(Buffer.alloc(plan.bodyBytes, 0x49), 'call.mp3', { type: 'audio/mpeg' }),
      model: 'whisper-test',
    },
    { headers: { 'Idempotency-Key': `not-wav-${attempt}` } },
  );
}

const outcomes: RefusedUploadOutcome[] = [];
for (let attempt = 0; attempt < plan.repeats; attempt += 1) {
  try {
    await callOnce(attempt);
    outcomes.push({ status: 200 });
  } catch (error) {
    if (error instanceof OpenAI.APIConnectionError) {
      const cause = (error as { cause?: { code?: string; cause?: { code?: string } } }).cause;
      outcomes.push({ connectionError: cause?.code ?? cause?.cause?.code ?? error.message });
    } else if (error instanceof OpenAI.APIError) {
      outcomes.push({ status: error.status, code: error.code ?? null });
    } else throw error;
  }
}
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
