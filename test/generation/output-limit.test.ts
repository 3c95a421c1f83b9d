import { beforeEach, describe, expect, it } from 'vitest';

import { modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

/**
 * docs/decisions/0015: the upstream is never asked for more output than the
 * hold covers, and an upstream that reports more than was asked cannot take a balance below zero.
 */

const modelLimit = 8_192;

const surfaces = {
  messages: {
    url: '/v1/messages',
    body: (model: string, limit: Record<string, number>) => ({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      ...limit,
    }),
    asked: { max_tokens: 100_000 },
  },
  chat: {
    url: '/v1/chat/completions',
    body: (model: string, limit: Record<string, number>) => ({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      ...limit,
    }),
    asked: { max_tokens: 100_000 },
  },
  responses: {
    url: '/v1/responses',
    body: (model: string, limit: Record<string, number>) => ({
      model,
      input: 'Hello',
      ...limit,
    }),
    asked: { max_output_tokens: 100_000 },
  },
} as const;

const upstreamLimitField = {
  anthropic: 'max_tokens',
  chat: 'max_completion_tokens',
  responses: 'max_output_tokens',
} as const;

const providers = ['anthropic', 'chat', 'responses'] as const;

describe('the output limit sent upstream (docs/decisions/0015)', () => {
  const bed = useUpstreamTestBed(
    modelPerDialect(
      { anthropic: 'via-anthropic', chat: 'via-chat', responses: 'via-responses' },
      { maxOutputTokens: modelLimit },
    ),
  );
  beforeEach(() => bed.fake.reset());

  const send = (token: string, url: string, payload: object) =>
    bed.gateway.app.inject({ method: 'POST', url, headers: { 'x-api-key': token }, payload });

  for (const [surfaceName, surface] of Object.entries(surfaces)) {
    for (const provider of providers) {
      const route = `${surfaceName} → ${provider}`;
      it(`${route}: a limit above the model's is lowered to it`, async () => {
        const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
        const response = await send(
          token,
          surface.url,
          surface.body(`via-${provider}`, surface.asked),
        );
        expect(response.statusCode, response.body).toBe(200);
        const sent = bed.fake.requests[0]?.body as Record<string, unknown>;
        // chat → chat keeps the field the client used; every other route has one name.
        const field =
          surfaceName === 'chat' && provider === 'chat'
            ? 'max_tokens'
            : upstreamLimitField[provider];
        expect(sent[field]).toBe(modelLimit);
      });
    }
  }

  it('chat → chat: a request without a limit is sent the one the hold was sized for', async () => {
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    const response = await send(token, surfaces.chat.url, surfaces.chat.body('via-chat', {}));
    expect(response.statusCode).toBe(200);
    expect(bed.fake.requests[0]?.body).toMatchObject({ max_completion_tokens: modelLimit });
  });

  it('keeps a limit below the model limit exactly as the client sent it', async () => {
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    await send(
      token,
      surfaces.messages.url,
      surfaces.messages.body('via-anthropic', { max_tokens: 50 }),
    );
    expect(bed.fake.requests[0]?.body).toMatchObject({ max_tokens: 50 });
  });

  it('messages → anthropic: a thinking budget at or above the lowered limit is lowered below it', async () => {
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    const response = await send(token, surfaces.messages.url, {
      ...surfaces.messages.body('via-anthropic', { max_tokens: 32_000 }),
      thinking: { type: 'enabled', budget_tokens: 31_999 },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(bed.fake.requests[0]?.body).toMatchObject({
      max_tokens: modelLimit,
      thinking: { type: 'enabled', budget_tokens: modelLimit - 1 },
    });
  });

  it('messages → anthropic: a thinking budget below the lowered limit is kept', async () => {
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    await send(token, surfaces.messages.url, {
      ...surfaces.messages.body('via-anthropic', { max_tokens: 32_000 }),
      thinking: { type: 'enabled', budget_tokens: 4_000 },
    });
    expect(bed.fake.requests[0]?.body).toMatchObject({
      max_tokens: modelLimit,
      thinking: { type: 'enabled', budget_tokens: 4_000 },
    });
  });

  it('never charges more than the hold and the balance cover when the upstream reports more', async () => {
    // The hold for 10 output tokens is well under 1 credit; the upstream claims a million.
    const credits = 1_000_000;
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.fake.enqueue({ output: [{ text: 'hi' }], usage: { input: 5, output: 1_000_000 } });
    const response = await send(
      token,
      surfaces.messages.url,
      surfaces.messages.body('via-anthropic', { max_tokens: 10 }),
    );
    expect(response.statusCode).toBe(200);
    const balance = await bed.gateway.store.ledger.getBalance(accountId);
    expect(balance).toEqual({ balance: 0, held: 0, available: 0 });
    const [record] = await bed.gateway.store.usage.listUsage(accountId, 1);
    expect(record).toMatchObject({ cost: credits, outputTokens: 1_000_000 });
    expect(record?.shortfall).toBe(5 * 3 + 1_000_000 * 15 - credits);
    const metrics = await bed.gateway.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(
      /switchyard_settlement_shortfall_micro_credits_total\{model="via-anthropic"\} 14000015/,
    );
  });
});
