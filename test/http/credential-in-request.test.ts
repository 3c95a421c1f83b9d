import { beforeEach, describe, expect, it } from 'vitest';
import { generateClientToken } from '../../src/auth/client-token.ts';
import { modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

/** docs/api.md: a client token is refused wherever it appears outside the headers. */
describe('client tokens outside the credential headers', () => {
  const bed = useUpstreamTestBed({
    ...modelPerDialect({ anthropic: 'claude', chat: 'gpt' }),
    credits: 10_000_000,
  });
  /** Someone else's token, shaped right: refused without any store read. */
  const foreign = generateClientToken().token;
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.logs.length = 0;
  });

  const chat = (body: Record<string, unknown>, url = '/v1/chat/completions') =>
    bed.gateway.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${bed.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        model: 'gpt',
        messages: [{ role: 'user', content: 'hi' }],
        ...body,
      }),
    });

  const expectNoSecretInLogs = (...secrets: string[]) => {
    expect(bed.gateway.logs.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      for (const line of bed.gateway.logs) expect(line).not.toContain(secret.slice(3));
    }
  };

  it('refuses a token anywhere in the URL with 400 credential_in_query', async () => {
    const urls = [
      `/v1/models?key[]=${foreign}`,
      `/v1/models?api_key[0]=${foreign}`,
      `/v1/models?API_KEY[x]=anything`,
      `/v1/models?foo=${foreign}`,
      `/v1/models?foo=prefix-${foreign}`,
      `/v1/models?${foreign}=1`,
      `/v1/models/${foreign}`,
      `/v1/models?foo=${foreign.replace('_', '%5F')}`,
      `/v1/models/${foreign.replace('_', '%5f')}`,
      `/nowhere/${foreign}`,
    ];
    for (const url of urls) {
      const response = await bed.gateway.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code, url).toBe('credential_in_query');
    }
    expectNoSecretInLogs(foreign);
  });

  it('answers in the route family shape, before authentication or body parsing', async () => {
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: `/v1/messages?beta=${foreign}`,
      headers: { 'x-api-key': 'sy_not-even-a-token', 'content-type': 'application/json' },
      payload: '{ not json',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    expect(response.json().error.message).toContain('not accepted in the URL');
  });

  it('still serves URLs with near misses: wrong checksum, other prefixes, snake_case', async () => {
    const mistyped = foreign.slice(0, -1) + (foreign.at(-1) === 'A' ? 'B' : 'A');
    for (const url of [`/v1/models?after_id=${mistyped}`, '/v1/models?my_param=busy_day']) {
      const response = await bed.gateway.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
    }
    // A mistyped token is not refused, but it is still kept out of the logs.
    expectNoSecretInLogs(mistyped);
  });

  it('refuses a token in any string of a JSON body with 400 credential_in_body and never forwards it', async () => {
    const bodies = [
      { api_key: foreign },
      { user: `key ${foreign}` },
      { messages: [{ role: 'user', content: `here is my key: ${foreign}` }] },
      { metadata: { nested: [{ [foreign]: true }] } },
      { messages: [{ role: 'user', content: `the caller's own one: ${bed.token}` }] },
    ];
    for (const body of bodies) {
      const response = await chat(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.code).toBe('credential_in_body');
    }
    const messages = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': bed.token, 'content-type': 'application/json' },
      payload: JSON.stringify({
        model: 'claude',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'text', text: foreign }] }],
      }),
    });
    expect(messages.statusCode).toBe(400);
    expect(messages.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    expect(bed.fake.requests).toHaveLength(0);
    expectNoSecretInLogs(foreign, bed.token);
  });

  it('refuses a token spelled with JSON escapes, and forwards ordinary escapes', async () => {
    const escape = (character: string) =>
      `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
    const spellings = [
      // `sy\u005f…`: the separator escaped.
      foreign.replace('_', escape('_')),
      // Every character escaped, as a key.
      [...foreign].map(escape).join(''),
    ];
    for (const [index, spelled] of spellings.entries()) {
      const payload =
        index === 0
          ? `{"model":"gpt","messages":[{"role":"user","content":"key: ${spelled}"}]}`
          : `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"metadata":{"${spelled}":1}}`;
      const response = await bed.gateway.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${bed.token}`, 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().error.code).toBe('credential_in_body');
    }
    expect(bed.fake.requests).toHaveLength(0);
    // Terminal colours and other control characters are escaped by every JSON writer.
    const ordinary = await chat({
      messages: [{ role: 'user', content: '\u001b[31mred\u001b[0m' }],
    });
    expect(ordinary.statusCode, ordinary.body).toBe(200);
    expectNoSecretInLogs(foreign);
  });

  it('forwards bodies that only look a little like a token', async () => {
    const mistyped = foreign.slice(0, -1) + (foreign.at(-1) === 'A' ? 'B' : 'A');
    const response = await chat({ user: `sy_ busy_day ${mistyped}` });
    expect(response.statusCode).toBe(200);
    expect(bed.fake.requests).toHaveLength(1);
  });
});
