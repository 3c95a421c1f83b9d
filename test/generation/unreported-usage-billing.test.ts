import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  settledUsageRecord,
  startTestGateway,
  testModel,
  type TestGateway,
} from '../support/test-gateway.ts';

/**
 * docs/decisions/0016: a whole, non-streamed answer whose upstream reports no usage is billed for
 * its text at four characters a token and the prompt's estimate — never given away for free — on
 * the same-dialect fast path and across dialects alike.
 */

const text = 'x'.repeat(400);

/** Each upstream dialect's complete answer, without any usage block. */
function answerWithoutUsage(path: string, model: string): unknown {
  if (path.endsWith('/messages')) {
    return {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
    };
  }
  if (path.endsWith('/chat/completions')) {
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    };
  }
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model,
    output: [
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
  };
}

const routes = {
  messages: {
    url: '/v1/messages',
    body: (model: string) => ({
      model,
      max_tokens: 1_000,
      messages: [{ role: 'user', content: 'Say it' }],
    }),
  },
  chat: {
    url: '/v1/chat/completions',
    body: (model: string) => ({
      model,
      max_tokens: 1_000,
      messages: [{ role: 'user', content: 'Say it' }],
    }),
  },
  responses: {
    url: '/v1/responses',
    body: (model: string) => ({ model, max_output_tokens: 1_000, input: 'Say it' }),
  },
} as const;

const providers = ['anthropic', 'chat', 'responses'] as const;

describe('a whole answer without a usage report (decision 0016)', () => {
  let upstream: Server;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const { model } = JSON.parse(body) as { model: string };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answerWithoutUsage(request.url ?? '', model)));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    gateway = await startTestGateway({
      providers: {
        anthropic: { kind: 'anthropic', baseUrl: url },
        chat: { kind: 'openai-chat', baseUrl: url },
        responses: { kind: 'openai-responses', baseUrl: url },
      },
      models: providers.map((provider) => testModel(`via-${provider}`, provider)),
    });
  });
  afterAll(async () => {
    await gateway.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  for (const [surface, route] of Object.entries(routes)) {
    for (const provider of providers) {
      it(`${surface} → ${provider}: is charged for its text and the prompt's estimate`, async () => {
        const credits = 10_000_000;
        const { token, accountId } = await gateway.createToken({ credits });
        const response = await gateway.app.inject({
          method: 'POST',
          url: route.url,
          headers: { 'x-api-key': token },
          payload: route.body(`via-${provider}`),
        });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.body).toContain(text);
        const record = await settledUsageRecord(gateway, accountId);
        expect(record.outcome).toBe('ok');
        expect(record.outputTokens).toBe(text.length / 4);
        expect(record.inputTokens).toBeGreaterThan(0);
        expect(record.cost).toBe(record.inputTokens * 3 + record.outputTokens * 15);
        const balance = await gateway.store.ledger.getBalance(accountId);
        expect(balance.balance).toBe(credits - record.cost);
        expect(balance.held).toBe(0);
      });
    }
  }
});
