import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  answerEverySlot,
  booleanQuestion,
  evaluationHeaders,
  postEvaluation,
  questions,
  startEvaluationBed,
  type EvaluationBed,
} from './evaluation-test-bed.ts';

const credits = 100_000_000;

const choice = (count: number) => ({
  state: 'A reply.',
  questions: {
    pick: {
      type: 'choice',
      instructions: 'Which?',
      criteria: Object.fromEntries(Array.from({ length: count }, (_, index) => [`c${index}`, 'x'])),
    },
  },
});
const score = (count: number) => ({
  state: 'A reply.',
  questions: {
    rate: {
      type: 'score',
      instructions: 'How good?',
      criteria: Array.from({ length: count }, (_, index) => `level ${index}`),
    },
  },
});

/** A valid body of exactly `bytes` bytes: the state string takes up the rest. */
function bodyOfSize(bytes: number): string {
  const empty = JSON.stringify({ state: '', questions: { ok: booleanQuestion } });
  const body = JSON.stringify({
    state: 'x'.repeat(bytes - Buffer.byteLength(empty)),
    questions: { ok: booleanQuestion },
  });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

describe('POST /v4/ai/evaluation-model: limits and headers', () => {
  let bed: EvaluationBed;
  let token: string;
  beforeAll(async () => {
    bed = await startEvaluationBed();
    token = (await bed.gateway.createToken({ credits })).token;
  });
  afterAll(async () => bed.close());
  beforeEach(() => {
    bed.upstream.reset();
    for (let index = 0; index < 4; index += 1) bed.upstream.enqueue(answerEverySlot);
  });

  const expectAccepted = async (body: unknown, headers = evaluationHeaders(token)) => {
    const response = await postEvaluation(bed.gateway, headers, body);
    expect(response.statusCode, response.body).toBe(200);
    return response;
  };
  const expectRefused = async (
    status: number,
    body: unknown,
    mentions: string,
    headers = evaluationHeaders(token),
  ) => {
    const callsBefore = bed.upstream.requests.length;
    const response = await postEvaluation(bed.gateway, headers, body);
    expect(response.statusCode, response.body).toBe(status);
    // Shape A (docs/api.md): no top-level type.
    expect(response.json().type).toBeUndefined();
    expect(response.json().error.message).toContain(mentions);
    expect(bed.upstream.requests).toHaveLength(callsBefore);
    return response;
  };

  it('takes 128 questions and refuses 129', async () => {
    const response = await expectAccepted({ state: 's', questions: questions(128) });
    expect(Object.keys(response.json().answers)).toHaveLength(128);
    await expectRefused(400, { state: 's', questions: questions(129) }, 'body.questions');
    await expectRefused(400, { state: 's', questions: {} }, 'body.questions');
  });

  it('takes 1 and 255 choice criteria and refuses 0 and 256', async () => {
    await expectAccepted(choice(1));
    await expectAccepted(choice(255));
    await expectRefused(400, choice(256), 'body.questions.pick.criteria');
    await expectRefused(400, choice(0), 'body.questions.pick.criteria');
  });

  it('takes 2 and 10 score criteria and refuses 1 and 11', async () => {
    await expectAccepted(score(2));
    await expectAccepted(score(10));
    await expectRefused(400, score(1), 'body.questions.rate.criteria');
    await expectRefused(400, score(11), 'body.questions.rate.criteria');
  });

  it('names the JSON path of an extra or missing field and a wrong question kind', async () => {
    await expectRefused(400, { state: 's', questions: questions(1), extra: 1 }, 'body.extra');
    await expectRefused(400, { questions: questions(1) }, 'body.state is required');
    await expectRefused(
      400,
      { state: 's', questions: { q: { ...booleanQuestion, weight: 2 } } },
      'body.questions.q.weight is not allowed',
    );
    await expectRefused(
      400,
      { state: 's', questions: { q: { type: 'rank', instructions: 'x' } } },
      'body.questions.q.type "rank" is not a known kind',
    );
    await expectRefused(
      400,
      { state: 5, questions: { q: { type: 'choice', instructions: 'x', criteria: { a: 'y' } } } },
      'body.state',
    );
  });

  it('takes content as a string, an array or an object', async () => {
    await expectAccepted({
      state: { transcript: ['a', 'b'] },
      questions: {
        a: { type: 'boolean', instructions: ['part one', { part: 2 }], criteria: { strict: true } },
      },
    });
  });

  it('takes an 80-character key and refuses 81 characters, a bad character or none', async () => {
    await expectAccepted(
      { state: 's', questions: questions(1) },
      evaluationHeaders(token, { 'idempotency-key': 'k'.repeat(80) }),
    );
    for (const key of ['k'.repeat(81), 'has space', 'slash/key', '', undefined]) {
      await expectRefused(
        400,
        { state: 's', questions: questions(1) },
        'Idempotency-Key',
        evaluationHeaders(token, { 'idempotency-key': key }),
      );
    }
    await expectAccepted(
      { state: 's', questions: questions(1) },
      evaluationHeaders(token, { 'idempotency-key': 'A-z_0.9:x' }),
    );
  });

  it('refuses a wrong or missing model id and specification version, naming the header', async () => {
    const body = { state: 's', questions: questions(1) };
    await expectRefused(
      400,
      body,
      'ai-model-id',
      evaluationHeaders(token, { 'ai-model-id': 'gpt' }),
    );
    await expectRefused(
      400,
      body,
      'ai-model-id',
      evaluationHeaders(token, { 'ai-model-id': undefined }),
    );
    for (const version of ['3', '4.0', undefined]) {
      await expectRefused(
        400,
        body,
        'ai-evaluation-model-specification-version',
        evaluationHeaders(token, { 'ai-evaluation-model-specification-version': version }),
      );
    }
  });

  it('takes a body of exactly 512 KiB and answers 413 to one byte more', async () => {
    await expectAccepted(bodyOfSize(512 * 1024));
    const response = await expectRefused(413, bodyOfSize(512 * 1024 + 1), 'too large');
    expect(response.json().error.code).toBe('request_too_large');
  });

  it('authenticates with Bearer or x-api-key and answers 401 without a valid token', async () => {
    const body = { state: 's', questions: questions(1) };
    const { authorization: _, ...withoutBearer } = evaluationHeaders(token);
    await expectAccepted(body, { ...withoutBearer, 'x-api-key': token });
    const missing = await expectRefused(401, body, 'Missing token', withoutBearer);
    expect(missing.json().error.type).toBe('authentication_error');
    const { token: reader } = await bed.gateway.createToken({
      credits,
      permissions: ['model:read'],
    });
    await expectRefused(401, body, 'permission', evaluationHeaders(reader));
  });
});
