import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import {
  modelPerDialect,
  startUpstreamTestBed,
  type TestGateway,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

/** The same-dialect fast path shows the catalog's model id, not the deployment's upstream name. */
describe('the model id a same-dialect client sees', () => {
  let bed: UpstreamTestBed;
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let token: string;

  beforeAll(async () => {
    bed = await startUpstreamTestBed({
      ...modelPerDialect({
        anthropic: 'team/claude',
        chat: 'team/chat',
        responses: 'team/responses',
      }),
      credits: 10_000_000,
    });
    ({ fake: upstream, gateway, token } = bed);
  });
  afterAll(async () => {
    await bed.close();
  });

  const routes = [
    {
      url: '/v1/messages',
      model: 'team/claude',
      body: { max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] },
      modelOf: (events: Record<string, unknown>[]) =>
        events
          .filter((event) => event.type === 'message_start')
          .map((event) => (event.message as { model: string }).model),
    },
    {
      url: '/v1/chat/completions',
      model: 'team/chat',
      body: { messages: [{ role: 'user', content: 'Hi' }] },
      modelOf: (events: Record<string, unknown>[]) => events.map((event) => event.model),
    },
    {
      url: '/v1/responses',
      model: 'team/responses',
      body: { input: 'Hi' },
      modelOf: (events: Record<string, unknown>[]) =>
        events
          .filter((event) => (event.response as { model?: string } | undefined)?.model)
          .map((event) => (event.response as { model: string }).model),
    },
  ];

  for (const route of routes) {
    it(`${route.url}: JSON and every model-bearing stream event name ${route.model}`, async () => {
      const post = (stream: boolean) =>
        gateway.app.inject({
          method: 'POST',
          url: route.url,
          headers: { authorization: `Bearer ${token}` },
          payload: { model: route.model, ...route.body, stream },
        });

      const json = await post(false);
      expect(json.statusCode).toBe(200);
      expect(json.json().model).toBe(route.model);
      expect((upstream.requests.at(-1)?.body as { model?: string }).model).toBe(
        `${route.model}-upstream`,
      );

      const streamed = await post(true);
      expect(streamed.statusCode).toBe(200);
      const events = parseServerSentEvents(streamed.body)
        .filter((event) => event.data !== '[DONE]')
        .map((event) => JSON.parse(event.data) as Record<string, unknown>);
      const models = route.modelOf(events);
      expect(models.length).toBeGreaterThan(0);
      expect(new Set(models)).toEqual(new Set([route.model]));
      expect(streamed.body).not.toContain(`${route.model}-upstream`);
    });
  }
});
