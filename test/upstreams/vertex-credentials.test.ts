import { afterEach, describe, expect, it } from 'vitest';

import { buildRequest } from '../generation/surface-clients.ts';
import { startVertexBed, vertexModel, type VertexBed } from './vertex-test-bed.ts';

let bed: VertexBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const question = (user: string) =>
  buildRequest('messages', { model: vertexModel, stream: false, user });

function logged(bed: VertexBed): Array<Record<string, unknown>> {
  return bed.gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("a vertex provider's access token", () => {
  it('is exchanged once for concurrent calls and reused by later ones', async () => {
    bed = await startVertexBed();
    const { token } = await bed.newClient();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) => bed?.send('messages', token, question(`q${index}`))),
    );
    expect(answers.map((answer) => answer?.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await bed.send('messages', token, question('later'))).statusCode).toBe(200);
    expect(bed.vertex.tokens.exchanges).toBe(1);
    const tokens = new Set(bed.fake.requests.map((request) => request.headers.authorization));
    tokens.delete(undefined as unknown as string);
    expect(tokens.size).toBe(1);
  });

  it('is one per service account when the provider has several keys', async () => {
    bed = await startVertexBed({ keys: 2 });
    const { token } = await bed.newClient();
    for (let index = 0; index < 6; index += 1)
      expect((await bed.send('messages', token, question(`q${index}`))).statusCode).toBe(200);
    const callers = new Set(bed.fake.requests.flatMap((request) => request.key ?? []));
    expect(callers).toEqual(new Set(bed.accounts));
    expect(bed.vertex.tokens.exchanges).toBe(2);
  });
});

describe('a failed token exchange', () => {
  it('is a 502 for the client and a warn line for the operator, with no key material', async () => {
    bed = await startVertexBed();
    const { token } = await bed.newClient();
    bed.vertex.tokens.failExchanges({ status: 503, errorType: 'temporarily_unavailable' });
    const response = await bed.send('messages', token, question('hello'));
    expect(response.statusCode).toBe(502);
    const message = JSON.parse(response.body).error.message as string;
    expect(message).toContain("The upstream's credentials could not be obtained");
    expect(message).toContain('The token endpoint failed (HTTP 503 temporarily_unavailable).');
    const warning = logged(bed).find(
      (entry) => entry.level === 40 && String(entry.cause).includes('token endpoint'),
    );
    expect(warning).toMatchObject({ provider: 'vertex' });
    const everything = `${response.body}\n${bed.gateway.logs.join('\n')}`;
    expect(everything).not.toContain('PRIVATE KEY');
    expect(everything).not.toMatch(/assertion|eyJhbGciOi/);
    // The generation call itself never left.
    expect(bed.fake.requests.filter((request) => request.path !== '/token')).toHaveLength(0);
  });

  it('is tried again by the next call, and a refused key says so', async () => {
    bed = await startVertexBed();
    const { token } = await bed.newClient();
    bed.vertex.tokens.failExchanges({ status: 400, errorType: 'invalid_grant' });
    const refused = await bed.send('messages', token, question('first'));
    expect(refused.statusCode).toBe(502);
    expect(JSON.parse(refused.body).error.message).toContain(
      'The token endpoint refused the service account key (HTTP 400 invalid_grant).',
    );
    bed.vertex.tokens.failExchanges(undefined);
    // The failure opened no circuit on its own: one refusal is below the threshold.
    expect((await bed.send('messages', token, question('second'))).statusCode).toBe(200);
    expect(bed.vertex.tokens.exchanges).toBe(1);
  });
});

describe('a token Vertex AI refuses', () => {
  it('is dropped: the next call, once the key is back in rotation, exchanges a fresh one', async () => {
    bed = await startVertexBed();
    const { token } = await bed.newClient();
    expect((await bed.send('messages', token, question('first'))).statusCode).toBe(200);
    expect(bed.vertex.tokens.exchanges).toBe(1);
    bed.fake.enqueue({ status: 401 });
    expect((await bed.send('messages', token, question('refused'))).statusCode).toBeGreaterThan(
      499,
    );
    // The key is out of rotation until its probe; bring it back by hand, as an operator would.
    bed.gateway.router.forget();
    expect((await bed.send('messages', token, question('again'))).statusCode).toBe(200);
    expect(bed.vertex.tokens.exchanges).toBe(2);
  });
});
