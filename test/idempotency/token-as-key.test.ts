import { afterAll, describe, expect, it } from 'vitest';

import { generateClientToken } from '../../src/auth/client-token.ts';
import {
  evaluationHeaders,
  postEvaluation,
  startEvaluationBed,
} from '../evaluation/evaluation-test-bed.ts';
import { createImage, startImageBed } from '../images/image-test-bed.ts';
import { postMcp, rpc, startMcpBed } from '../mcp/mcp-test-bed.ts';
import { bearer, postSearch, startSearchBed } from '../search/search-test-bed.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { buildWav } from '../transcription/build-wav.ts';
import {
  credentials,
  postTranscription,
  startTranscriptionBed,
  transcriptionForm,
} from '../transcription/transcription-test-bed.ts';

const credits = 10_000_000;

/** A real token's shape (prefix and checksum), as a client that mixed up its headers sends it. */
const tokenAsKey = () => generateClientToken().token;

function expectRefused(response: { statusCode: number; json(): unknown }, header: string) {
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({
    error: { code: 'invalid_header', param: header },
  });
  expect(JSON.stringify(response.json())).toContain('client token');
}

/** Nothing was claimed, stored or charged for the refused key. */
async function expectUntouched(gateway: TestGateway, accountId: string) {
  expect((await gateway.store.ledger.getBalance(accountId)).balance).toBe(credits);
}

/**
 * A client token sent as an idempotency key is refused with 400 on every keyed route, before
 * any claim, upstream call or charge (docs/decisions/0106).
 */
describe('a client token as an idempotency key', () => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('is refused by POST /v1/images/generations', async () => {
    const bed = await startImageBed();
    closers.push(() => bed.close());
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const response = await createImage(bed.gateway, token, tokenAsKey(), {
      model: 'picture-sync',
      prompt: 'p',
      source: 'credits',
    });
    expectRefused(response, 'Idempotency-Key');
    expect(bed.fake.requests).toHaveLength(0);
    await expectUntouched(bed.gateway, accountId);
  });

  it('is refused by the evaluation route', async () => {
    const bed = await startEvaluationBed();
    closers.push(() => bed.close());
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const response = await postEvaluation(
      bed.gateway,
      evaluationHeaders(token, { 'idempotency-key': tokenAsKey() }),
      { state: 's', questions: { a: { type: 'boolean', instructions: 'ok?' } } },
    );
    expectRefused(response, 'Idempotency-Key');
    expect(bed.upstream.requests).toHaveLength(0);
    await expectUntouched(bed.gateway, accountId);
  });

  it('is refused by POST /v1/search as x-request-id', async () => {
    const bed = await startSearchBed(['tavily']);
    closers.push(() => bed.close());
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const response = await postSearch(
      bed.gateway,
      { ...bearer(token), 'x-request-id': tokenAsKey() },
      { query: 'q' },
    );
    expectRefused(response, 'x-request-id');
    expect(bed.upstreams[0]?.requests).toHaveLength(0);
    await expectUntouched(bed.gateway, accountId);
  });

  it('is refused by POST /v1/audio/transcriptions', async () => {
    const bed = await startTranscriptionBed();
    closers.push(() => bed.close());
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const response = await postTranscription(
      bed.gateway,
      credentials(token, tokenAsKey()),
      transcriptionForm(buildWav()),
    );
    expectRefused(response, 'Idempotency-Key');
    expect(bed.upstreams[0]?.requests).toHaveLength(0);
    await expectUntouched(bed.gateway, accountId);
  });

  it('is refused in the MCP generate_image and search tools, by the scan of the body', async () => {
    const images = await startImageBed({});
    closers.push(() => images.close());
    const search = await startMcpBed();
    closers.push(() => search.close());
    const callTool = (gateway: TestGateway, token: string, name: string, args: unknown) =>
      postMcp(gateway, bearer(token), rpc('tools/call', { name, arguments: args }));

    const imageToken = await images.gateway.createToken({ credits });
    const generated = await callTool(images.gateway, imageToken.token, 'generate_image', {
      model: 'picture-sync',
      prompt: 'p',
      source: 'credits',
      idempotency_key: tokenAsKey(),
    });
    expect(generated.statusCode).toBe(400);
    expect(generated.json()).toMatchObject({ error: { data: { code: 'credential_in_body' } } });
    expect(images.fake.requests).toHaveLength(0);
    await expectUntouched(images.gateway, imageToken.accountId);

    const searchToken = await search.gateway.createToken({ credits });
    const searched = await callTool(search.gateway, searchToken.token, 'search', {
      query: 'q',
      request_id: tokenAsKey(),
    });
    expect(searched.statusCode).toBe(400);
    expect(searched.json()).toMatchObject({ error: { data: { code: 'credential_in_body' } } });
    expect(search.upstreams[0]?.requests).toHaveLength(0);
    await expectUntouched(search.gateway, searchToken.accountId);
  });
});
