import { openAsBlob } from 'node:fs';

import type { ApiError } from '../../canonical/generation-error.ts';
import type { ProviderConfig } from '../../config/config-schema.ts';
import { exchangeWithUpstream, unreadable } from '../../providers/shared/exchange-with-upstream.ts';
import { upstreamOrigin } from '../../providers/shared/map-upstream-failure.ts';
import type { UpstreamPools } from '../../providers/shared/upstream-pool.ts';
import { AbortHandle } from '../../shared/abort-handle.ts';
import { parseUntrustedJson } from '../../shared/parse-json.ts';
import type { TranscriptionForm } from './read-transcription-form.ts';
import type { TranscriptionUsage } from './transcription-types.ts';

export interface TranscriptionDeployment {
  providerId: string;
  provider: ProviderConfig;
  upstreamModel: string;
}

/** What one deployment's try came to. */
export type TranscriptionOutcome =
  | { ok: true; text: string; usage: TranscriptionUsage | undefined }
  /** `next`: another deployment may answer (5xx, timeout, connect failure, refused key). */
  | { ok: false; error: ApiError; next: boolean };

/** A transcription of 20 minutes is tens of kilobytes; more than this is not an answer. */
const ANSWER_BYTES_LIMIT = 4 * 1024 * 1024;

/**
 * `POST {baseUrl}/v1/audio/transcriptions` as OpenAI, Groq, vLLM and whisper.cpp's server take it:
 * multipart with the file's exact bytes, streamed from the spool file as they are sent, and the
 * deployment's upstream model in `model`. Never throws for upstream failures.
 */
export async function callTranscriptionUpstream(input: {
  pools: UpstreamPools;
  deployment: TranscriptionDeployment;
  apiKey: string | undefined;
  form: TranscriptionForm;
  now(): number;
}): Promise<TranscriptionOutcome> {
  const { deployment, form } = input;
  const { provider } = deployment;
  // undici's entry loads all of undici (fetch, WebSocket, cache…): only once a transcription
  // is sent, not at start-up (src/providers/shared/undici-pool.ts).
  const { FormData } = await import('undici');
  const body = new FormData();
  body.append('model', deployment.upstreamModel);
  if (form.parameters.language !== undefined) body.append('language', form.parameters.language);
  if (form.parameters.prompt !== undefined) body.append('prompt', form.parameters.prompt);
  body.append('response_format', form.parameters.response_format);
  // A blob backed by the file: its bytes are read from disk while the body is written.
  const file = await openAsBlob(form.audio.path, { type: form.mimetype });
  body.append('file', file, form.filename);
  const exchange = await exchangeWithUpstream({
    pools: input.pools,
    target: provider,
    request: {
      path: '/v1/audio/transcriptions',
      headers: {
        ...provider.headers,
        ...(input.apiKey !== undefined ? { authorization: `Bearer ${input.apiKey}` } : {}),
        accept: 'application/json',
      },
      body,
      // A transcription runs to its end even when its client leaves, so a retry under the same
      // Idempotency-Key replays it instead of paying again.
      signal: new AbortHandle(),
    },
    name: `transcription upstream ${deployment.providerId}`,
    origin: upstreamOrigin(
      deployment.providerId,
      provider,
      '/v1/audio/transcriptions',
      input.apiKey,
    ),
    answerBytesLimit: ANSWER_BYTES_LIMIT,
    now: input.now,
  });
  // docs/decisions/0068: an upstream 429 is not retried on another deployment.
  if (!exchange.ok) return exchange;
  const { text } = exchange;
  const answer = readAnswer(text);
  if (answer === undefined)
    return unreadable(
      `The answer of the transcription upstream ${deployment.providerId} is not a transcription.`,
    );
  return { ok: true, ...answer };
}

/**
 * `{text, usage?}`: `usage` is `{type: "duration", seconds}` (whisper-1) or `{type: "tokens",
 * input_tokens, output_tokens, …}` (gpt-4o-transcribe); anything else counts as no usage.
 */
function readAnswer(
  text: string,
): { text: string; usage: TranscriptionUsage | undefined } | undefined {
  let body: unknown;
  try {
    body = parseUntrustedJson(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { text: transcript, usage } = body as { text?: unknown; usage?: unknown };
  if (typeof transcript !== 'string') return undefined;
  return { text: transcript, usage: readUsage(usage) };
}

function readUsage(usage: unknown): TranscriptionUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const fields = usage as Record<string, unknown>;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  if (fields.type === 'duration') {
    const seconds = count(fields.seconds);
    return seconds === undefined ? undefined : { type: 'duration', seconds };
  }
  if (fields.type === 'tokens') {
    const inputTokens = count(fields.input_tokens);
    const outputTokens = count(fields.output_tokens);
    if (inputTokens === undefined || outputTokens === undefined) return undefined;
    return {
      type: 'tokens',
      inputTokens: Math.round(inputTokens),
      outputTokens: Math.round(outputTokens),
    };
  }
  return undefined;
}
