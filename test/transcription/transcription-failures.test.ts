import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { buildWav } from './build-wav.ts';
import { startFakeTranscriptionUpstream } from './fake-transcription-upstream.ts';
import {
  credentials,
  postTranscription,
  startTranscriptionBed,
  transcriptionForm,
  upstreamKey,
} from './transcription-test-bed.ts';

const credits = 1_000_000;
const wav = buildWav({ seconds: 60 });
/** 60 s × 100 micro-credits. */
const held = 6_000;

describe('transcription money and upstream failures', () => {
  const bed = useTestBed(() => startTranscriptionBed({ deployments: 2 }));
  const calls = (index: number) => bed.upstreams[index]?.requests.length ?? 0;
  const balanceOf = async (accountId: string) => bed.gateway.store.ledger.getBalance(accountId);

  it('answers 402 before any upstream call when the balance cannot cover the duration', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: held - 1 });
    const before = calls(0);
    const response = await postTranscription(
      bed.gateway,
      credentials(token, 'poor-1'),
      transcriptionForm(wav),
    );
    expect(response.statusCode).toBe(402);
    expect(response.json().error.code).toBe('insufficient_credits');
    expect(calls(0)).toBe(before);
    expect((await balanceOf(accountId)).available).toBe(held - 1);
    // Exactly enough is enough.
    const { token: exact } = await bed.gateway.createToken({ credits: held });
    const paid = await postTranscription(
      bed.gateway,
      credentials(exact, 'poor-2'),
      transcriptionForm(wav),
    );
    expect(paid.statusCode).toBe(200);
  });

  it('keeps an upstream 429 with its retry-after, tries no other deployment, charges nothing', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({
      status: 429,
      headers: { 'retry-after': '17' },
      body: { error: { message: 'Rate limit reached for whisper-1', type: 'requests' } },
    });
    const before = calls(1);
    const response = await postTranscription(
      bed.gateway,
      credentials(token, 'limited-1'),
      transcriptionForm(wav),
    );
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('17');
    expect(calls(1)).toBe(before);
    expect(await balanceOf(accountId)).toMatchObject({ balance: credits, available: credits });
  });

  it('tries the next deployment on a 5xx or a cut connection, and charges once', async () => {
    for (const [index, reply] of [{ status: 500, body: {} }, { destroy: true }].entries()) {
      const { token, accountId } = await bed.gateway.createToken({ credits });
      bed.upstreams[0]?.replies.push(reply);
      const before = calls(1);
      const response = await postTranscription(
        bed.gateway,
        credentials(token, `fallback-${index}`),
        transcriptionForm(wav),
      );
      expect(response.statusCode).toBe(200);
      expect(response.json().text).toContain('whisper-upstream-1');
      expect(calls(1)).toBe(before + 1);
      expect(bed.upstreams[1]?.requests.at(-1)?.fileBytes).toBe(wav.length);
      expect((await balanceOf(accountId)).balance).toBe(credits - held);
    }
  });

  it('answers 502 when every deployment fails with a 5xx, and releases the hold', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({ status: 500, body: {} });
    bed.upstreams[1]?.replies.push({ status: 502, body: { error: { message: 'bad gateway' } } });
    const response = await postTranscription(
      bed.gateway,
      credentials(token, 'broken-1'),
      transcriptionForm(wav),
    );
    expect(response.statusCode).toBe(502);
    expect(response.json().error.type).toBe('api_error');
    expect(await balanceOf(accountId)).toMatchObject({ balance: credits, available: credits });
    // A failure is not kept: the same key runs again.
    const retry = await postTranscription(
      bed.gateway,
      credentials(token, 'broken-1'),
      transcriptionForm(wav),
    );
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('wants audio:create: 401 without it, 401 without a token', async () => {
    const { token } = await bed.gateway.createToken({
      credits,
      permissions: ['inference:create', 'search:create'],
    });
    const before = calls(0);
    const denied = await postTranscription(
      bed.gateway,
      credentials(token, 'denied-1'),
      transcriptionForm(wav),
    );
    expect(denied.statusCode).toBe(401);
    expect(denied.json().error.message).toContain('permission');
    const anonymous = await postTranscription(
      bed.gateway,
      { 'idempotency-key': 'anonymous-1' },
      transcriptionForm(wav),
    );
    expect(anonymous.statusCode).toBe(401);
    const { token: allowed } = await bed.gateway.createToken({
      credits,
      permissions: ['audio:create'],
    });
    const viaApiKey = await postTranscription(
      bed.gateway,
      { 'x-api-key': allowed, 'idempotency-key': 'api-key-1' },
      transcriptionForm(wav),
    );
    expect(viaApiKey.statusCode).toBe(200);
    expect(calls(0)).toBe(before + 1);
  });

  it('never writes the client token or the upstream key into the logs', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({ status: 500, body: {} });
    await postTranscription(bed.gateway, credentials(token, 'logs-1'), transcriptionForm(wav));
    const logs = bed.gateway.logs.join('\n');
    expect(logs).toContain('/v1/audio/transcriptions');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(upstreamKey);
    // The multipart reader logs the request headers at trace; they arrive redacted.
    expect(logs).toContain('Providing options to busboy');
    expect(logs).toContain('"authorization":"[Redacted]"');
  });
});

/** docs/decisions/0111: a wrong baseUrl is the gateway's mistake, told to the operator. */
describe('a transcription provider whose baseUrl ends in /v1', () => {
  const bed = useTestBed(async () => {
    const upstream = await startFakeTranscriptionUpstream();
    const started = await startTranscriptionBed({ baseUrls: [`${upstream.url}/v1`] });
    return {
      ...started,
      async close() {
        await started.close();
        await upstream.close();
      },
    };
  });

  it("answers 502, not the client's 400, and logs provider, path called and cause in one warn line", async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const response = await postTranscription(
      bed.gateway,
      credentials(token, 'doubled-1'),
      transcriptionForm(wav),
    );
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('upstream_error');
    const lines = bed.gateway.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .filter((entry) => entry.requestId === response.headers['request-id']);
    const failures = lines.filter((entry) => entry.msg === 'upstream call failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      level: 40,
      provider: 'audio-0',
      upstreamStatus: 404,
      upstreamPath: '/v1/v1/audio/transcriptions',
    });
    expect(failures[0]?.cause).toContain('baseUrl');
    expect(lines.filter((entry) => (entry.level as number) >= 50)).toEqual([]);
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      available: credits,
    });
  });
});

describe('a transcription provider whose key variable is unset', () => {
  const unset = 'SWITCHYARD_TEST_AUDIO_KEY_NOBODY_SET';
  const bed = useTestBed(() => {
    delete process.env[unset];
    return startTranscriptionBed({ apiKeyEnv: unset });
  });

  it('names the variable as the cause of the refused call in the log, never to the client', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({
      status: 401,
      body: { error: { message: 'You did not provide an API key.' } },
    });
    const response = await postTranscription(
      bed.gateway,
      credentials(token, 'keyless-1'),
      transcriptionForm(wav),
    );
    expect(response.statusCode).toBe(502);
    expect(response.body).not.toContain(unset);
    expect(bed.upstreams[0]?.requests.at(-1)?.headers.authorization).toBeUndefined();
    const line = bed.gateway.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find(
        (entry) =>
          entry.msg === 'upstream call failed' &&
          entry.requestId === response.headers['request-id'],
      );
    expect(line).toMatchObject({ level: 40, provider: 'audio-0', upstreamStatus: 401 });
    expect(line?.cause).toContain(unset);
  });
});

describe('transcription priced by tokens where the upstream reports them', () => {
  const bed = useTestBed(() =>
    startTranscriptionBed({ pricing: { perSecond: 0.0001, input: 100, output: 200 } }),
  );

  it('charges the reported tokens at the token prices, capped at the hold of the duration', async () => {
    const upstream = bed.upstreams[0];
    if (upstream === undefined) throw new Error('no upstream');
    upstream.usage = 'tokens';
    // 30 input tokens × 100 + 12 output tokens × 200 credits per million = 5 400 micro-credits.
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const response = await postTranscription(
      bed.gateway,
      credentials(token, 'tokens-1'),
      transcriptionForm(buildWav({ seconds: 60 })),
    );
    expect(response.statusCode).toBe(200);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(credits - 5_400);
    // 10 s hold = 1 000 micro-credits: the token price is capped there.
    const { token: short, accountId: shortAccount } = await bed.gateway.createToken({ credits });
    await postTranscription(
      bed.gateway,
      credentials(short, 'tokens-2'),
      transcriptionForm(buildWav({ seconds: 10 })),
    );
    expect((await bed.gateway.store.ledger.getBalance(shortAccount)).balance).toBe(credits - 1_000);
    // No usage at all: the header's duration is charged.
    upstream.usage = 'none';
    const { token: bare, accountId: bareAccount } = await bed.gateway.createToken({ credits });
    await postTranscription(
      bed.gateway,
      credentials(bare, 'tokens-3'),
      transcriptionForm(buildWav({ seconds: 7 })),
    );
    expect((await bed.gateway.store.ledger.getBalance(bareAccount)).balance).toBe(credits - 700);
  });
});
