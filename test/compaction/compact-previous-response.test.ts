import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  compactionModels,
  startCompactionTestBed,
  type CompactionTestBed,
} from './compaction-test-bed.ts';

/**
 * `/v1/responses/compact` with `previous_response_id` compacts the whole expanded
 * conversation. A forwarding upstream gets the history itself, never a response id it never
 * kept, and the compacted output keeps the user messages of the history too.
 */
describe('POST /v1/responses/compact continuing a stored response', () => {
  let bed: CompactionTestBed;
  let token: string;

  beforeAll(async () => {
    bed = await startCompactionTestBed();
    ({ token } = await bed.gateway.createToken({ credits: 100_000_000 }));
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(() => bed.fake.reset());

  const post = (url: string, body: Record<string, unknown>) =>
    bed.gateway.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: body,
    });

  /** A stored first turn (the dialect's default store), whose id the compaction continues. */
  async function firstTurn(model: string): Promise<string> {
    bed.fake.enqueue({ output: [{ text: 'Renamed it.' }] });
    const response = await post('/v1/responses', { model, input: 'Rename parse to parseCsv.' });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ id: string }>().id;
  }

  const userTexts = (output: Array<Record<string, unknown>>) =>
    output.filter((item) => item.role === 'user').map((item) => JSON.stringify(item.content));

  for (const model of [compactionModels.forwarding, compactionModels.anthropic]) {
    it(`expands the history first (${model})`, async () => {
      const previous = await firstTurn(model);
      bed.fake.reset();
      bed.fake.enqueue({
        output: [{ text: 'SUMMARY: renamed.' }],
        usage: { input: 50, output: 9 },
      });
      const response = await post('/v1/responses/compact', {
        model,
        previous_response_id: previous,
        input: [{ role: 'user', content: 'Now add a test.' }],
      });
      expect(response.statusCode, response.body).toBe(200);
      const upstream = bed.fake.requests[0];
      expect(upstream?.rawBody).not.toContain('previous_response_id');
      expect(upstream?.rawBody).toContain('Rename parse to parseCsv.');
      expect(upstream?.rawBody).toContain('Renamed it.');
      const output = response.json<{ output: Array<Record<string, unknown>> }>().output;
      const users = userTexts(output);
      expect(users).toHaveLength(2);
      expect(users[0]).toContain('Rename parse to parseCsv.');
      expect(users[1]).toContain('Now add a test.');
      expect(output.at(-1)?.type).toBe('compaction');
    });
  }

  it('refuses an unknown previous response before any upstream call', async () => {
    const response = await post('/v1/responses/compact', {
      model: compactionModels.forwarding,
      previous_response_id: 'resp_unknown',
      input: [{ role: 'user', content: 'Now add a test.' }],
    });
    expect(response.statusCode).toBe(400);
    expect(bed.fake.requests).toHaveLength(0);
  });
});
