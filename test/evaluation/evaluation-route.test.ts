import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  answerEverySlot,
  booleanQuestion,
  evaluationHeaders,
  judgeReply,
  judgeToolSchema,
  postEvaluation,
  questions,
  startEvaluationBed,
  type EvaluationBed,
} from './evaluation-test-bed.ts';
import { formatCredits } from '../../src/billing/micro-credits.ts';
import { byteBound, measurePrompt } from '../../src/generation/measure-prompt.ts';

const credits = 10_000_000;

const mixedBody = {
  state: [{ role: 'assistant', content: 'Thank you kindly, here is your refund.' }],
  questions: {
    tone: {
      type: 'choice',
      instructions: 'What is the tone of the reply?',
      criteria: { friendly: 'Warm, thanks the user', curt: { text: 'Short, no courtesy' } },
    },
    'quality (0-2)': {
      type: 'score',
      instructions: 'How complete is the reply?',
      criteria: ['missing', 'partial', ['complete', 'and correct']],
    },
    resolved: booleanQuestion,
  },
};

describe('POST /v4/ai/evaluation-model: the judge', () => {
  let bed: EvaluationBed;
  beforeAll(async () => {
    bed = await startEvaluationBed();
  });
  afterAll(async () => bed.close());
  beforeEach(() => bed.upstream.reset());

  it('answers each question kind through one forced tool call, checked and typed', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.upstream.enqueue(
      judgeReply(
        {
          q0: { value: 'friendly', reason: 'It thanks the user.' },
          q1: { value: 2 },
          q2: { value: true, reason: '' },
        },
        { input: 300, output: 40 },
      ),
    );
    const response = await postEvaluation(bed.gateway, evaluationHeaders(token), mixedBody);
    expect(response.statusCode).toBe(200);
    expect(response.headers['idempotent-replayed']).toBeUndefined();
    const body = response.json();
    expect(body.answers).toEqual({
      tone: { type: 'choice', value: 'friendly', reason: 'It thanks the user.' },
      'quality (0-2)': { type: 'score', value: 2 },
      resolved: { type: 'boolean', value: true },
    });
    expect(Object.keys(body.answers)).toEqual(Object.keys(mixedBody.questions));
    expect(body.usage).toEqual({ inputTokens: 300, outputTokens: 40 });
    expect(body.providerMetadata).toMatchObject({
      calls: 1,
      deployments: ['judge/judge-model-upstream'],
    });
    expect(body.providerMetadata.upstreamRequestIds).toHaveLength(1);

    // The upstream saw a forced call whose schema is built from the questions.
    const [call] = bed.upstream.requests;
    const sent = call?.body as Record<string, unknown>;
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'submit_answers' });
    const schema = judgeToolSchema(call!);
    expect(schema.required).toEqual(['q0', 'q1', 'q2']);
    expect(schema.properties.q0?.properties.value).toEqual({
      type: 'string',
      enum: ['friendly', 'curt'],
    });
    expect(schema.properties.q1?.properties.value).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 2,
    });
    expect(schema.properties.q2?.properties.value).toEqual({ type: 'boolean' });
    expect(JSON.stringify(sent.messages)).toContain('Thank you kindly');

    // Paid at the judge model's prices like text generation: 300 × 3 + 40 × 15 micro-credits.
    const balance = await bed.gateway.store.ledger.getBalance(accountId);
    expect(balance).toMatchObject({ balance: credits - 1_500, held: 0 });
    const [record] = await bed.gateway.store.usage.listUsage(accountId, 1);
    expect(record).toMatchObject({ surface: 'evaluation', model: 'judge-model', cost: 1_500 });
  });

  it('asks once more when an answer fails the check and sums the usage of both calls', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.upstream.enqueue(
      judgeReply({ q0: { value: 'rude' }, q1: { value: 1 }, q2: { value: false } }),
      judgeReply({ q0: { value: 'curt' }, q1: { value: 1 }, q2: { value: false } }),
    );
    const response = await postEvaluation(bed.gateway, evaluationHeaders(token), mixedBody);
    expect(response.statusCode).toBe(200);
    expect(response.json().answers.tone).toEqual({ type: 'choice', value: 'curt' });
    expect(response.json().usage).toEqual({ inputTokens: 200, outputTokens: 40 });
    expect(response.json().providerMetadata.calls).toBe(2);
    expect(bed.upstream.requests).toHaveLength(2);
    // Both calls' charges together, and the balance after the second, as the ledger has them.
    const entries = await bed.gateway.store.ledger.listEntries(accountId, 10);
    const charged = entries
      .filter((entry) => entry.kind === 'usage')
      .reduce((sum, entry) => sum - entry.amount, 0);
    expect(entries.filter((entry) => entry.kind === 'usage')).toHaveLength(2);
    expect(response.headers['x-switchyard-cost']).toBe(formatCredits(charged));
    const { available } = await bed.gateway.store.ledger.getBalance(accountId);
    expect(available).toBe(credits - charged);
    expect(response.headers['x-switchyard-balance']).toBe(formatCredits(available));
  });

  it.each([
    [
      'a choice outside the criteria',
      { q0: { value: 'neutral' }, q1: { value: 0 }, q2: { value: true } },
    ],
    [
      'a score outside the levels',
      { q0: { value: 'curt' }, q1: { value: 3 }, q2: { value: true } },
    ],
    ['a missing answer', { q0: { value: 'curt' }, q1: { value: 0 } }],
    ['a boolean given as text', { q0: { value: 'curt' }, q1: { value: 0 }, q2: { value: 'yes' } }],
  ])(
    'fails with 502 after two answers with %s, inventing nothing and charging nothing',
    async (_, args) => {
      const { token, accountId } = await bed.gateway.createToken({ credits });
      bed.upstream.enqueue(judgeReply(args), judgeReply(args));
      const response = await postEvaluation(bed.gateway, evaluationHeaders(token), mixedBody);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toMatchObject({
        error: { type: 'api_error', code: 'upstream_error' },
      });
      expect(response.json().answers).toBeUndefined();
      expect(bed.upstream.requests).toHaveLength(2);
      // Both calls were settled, then given back: a failed evaluation costs nothing.
      expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
        balance: credits,
        held: 0,
      });
    },
  );

  it('fails with 502 when the judge answers in text instead of the tool', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    bed.upstream.enqueue({ output: [{ text: 'friendly' }] }, { output: [{ text: 'friendly' }] });
    const response = await postEvaluation(bed.gateway, evaluationHeaders(token), mixedBody);
    expect(response.statusCode).toBe(502);
    expect(response.json().error.message).toContain('did not call submit_answers');
  });

  it('answers 402 with nothing charged when the balance cannot cover the judge', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1 });
    const response = await postEvaluation(bed.gateway, evaluationHeaders(token), mixedBody);
    expect(response.statusCode).toBe(402);
    expect(bed.upstream.requests).toHaveLength(0);
  });
});

describe('POST /v4/ai/evaluation-model on a balance under the judge limit', () => {
  let bed: EvaluationBed;
  beforeAll(async () => {
    // A least output limit under the judge's own, so the balance could lower it.
    bed = await startEvaluationBed({ config: { billing: { minimumOutputTokens: 16 } } });
  });
  afterAll(async () => bed.close());

  it('is never sent a lowered limit, which would cut its tool call (docs/decisions/0100)', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    bed.upstream.enqueue(answerEverySlot);
    expect(
      (await postEvaluation(bed.gateway, evaluationHeaders(token), mixedBody)).statusCode,
    ).toBe(200);
    const judged = bed.upstream.requests[0]?.body as Record<string, unknown>;
    const limit = judged.max_tokens as number;
    // The prompt's part of the hold at the dearest rate (6 µ), and 16 output tokens at 15 µ:
    // room for the least limit, not for the judge's.
    const prompt = measurePrompt(judged, byteBound, 200_000) * 6;
    const poor = await bed.gateway.createToken({ credits: prompt + 16 * 15 + (limit - 16) * 7 });
    bed.upstream.reset();
    const response = await postEvaluation(bed.gateway, evaluationHeaders(poor.token), mixedBody);
    expect(response.statusCode).toBe(402);
    expect(bed.upstream.requests).toHaveLength(0);
  });
});

describe.each([['openai-chat' as const], ['openai-responses' as const]])(
  'POST /v4/ai/evaluation-model with a %s judge',
  (kind) => {
    let bed: EvaluationBed;
    beforeAll(async () => {
      bed = await startEvaluationBed({ kind });
    });
    afterAll(async () => bed.close());

    it('forces the tool in that dialect and checks its answers', async () => {
      const { token } = await bed.gateway.createToken({ credits });
      bed.upstream.enqueue(answerEverySlot);
      const response = await postEvaluation(bed.gateway, evaluationHeaders(token), mixedBody);
      expect(response.statusCode).toBe(200);
      expect(response.json().answers).toEqual({
        tone: { type: 'choice', value: 'friendly' },
        'quality (0-2)': { type: 'score', value: 0 },
        resolved: { type: 'boolean', value: true },
      });
      expect(bed.upstream.requests[0]?.dialect).toBe(kind === 'openai-chat' ? 'chat' : 'responses');
    });
  },
);

describe('POST /v4/ai/evaluation-model with a small judge', () => {
  let bed: EvaluationBed;
  beforeAll(async () => {
    bed = await startEvaluationBed({ model: { contextWindow: 4_000, maxOutputTokens: 1_000 } });
  });
  afterAll(async () => bed.close());
  beforeEach(() => bed.upstream.reset());

  it('splits the questions into calls that fit the model and merges their answers', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    for (let index = 0; index < 20; index += 1) bed.upstream.enqueue(answerEverySlot);
    const response = await postEvaluation(bed.gateway, evaluationHeaders(token), {
      state: 'A short conversation.',
      questions: questions(40),
    });
    expect(response.statusCode).toBe(200);
    const calls = bed.upstream.requests.length;
    expect(calls).toBeGreaterThan(1);
    for (const request of bed.upstream.requests) {
      const sent = request.body as { max_tokens: number };
      expect(sent.max_tokens).toBeLessThanOrEqual(1_000);
      expect(Buffer.byteLength(request.rawBody) / 3 + sent.max_tokens).toBeLessThan(4_000);
    }
    const body = response.json();
    expect(Object.keys(body.answers)).toHaveLength(40);
    expect(body.usage).toEqual({ inputTokens: 100 * calls, outputTokens: 20 * calls });
    expect(body.providerMetadata.calls).toBe(calls);
  });

  it('refuses with 400 a state that cannot fit the model with any question', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const response = await postEvaluation(bed.gateway, evaluationHeaders(token), {
      state: 'x'.repeat(20_000),
      questions: questions(1),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('context window');
    expect(bed.upstream.requests).toHaveLength(0);
  });
});
