import { describe, expect, it } from 'vitest';

import { createImage, startImageBed } from '../images/image-test-bed.ts';
import { useTestBed } from '../support/use-test-bed.ts';

describe('GET /api/dashboard/image-jobs', () => {
  const bed = useTestBed(() => startImageBed());

  async function signIn(accountId: string): Promise<string> {
    const link = await bed.gateway.operator.createSignInLink(accountId);
    const answer = await bed.gateway.app.inject({
      method: 'POST',
      url: '/api/dashboard/session',
      payload: { code: new URL(link.url).hash.slice('#code='.length) },
    });
    return String(answer.headers['set-cookie']).split(';')[0] as string;
  }

  it("lists the account's image jobs newest first, page by page, with their result files", async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits: 10_000_000,
      permissions: ['image:create'],
    });
    const made: string[] = [];
    for (const key of ['first', 'second', 'third']) {
      const created = await createImage(bed.gateway, token, key, {
        model: 'picture-sync',
        prompt: `a lighthouse, ${key}`,
        source: 'credits',
      });
      expect(created.statusCode, created.body).toBe(200);
      made.push(created.json().id as string);
      // Distinct creation times: jobs of the same millisecond are ordered by their random ids.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const cookie = await signIn(accountId);
    const page = (query: string) =>
      bed.gateway.app.inject({
        method: 'GET',
        url: `/api/dashboard/image-jobs${query}`,
        headers: { cookie },
      });

    const first = await page('?limit=2');
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body.data.map((job: { id: string }) => job.id)).toEqual([made[2], made[1]]);
    expect(body.has_more).toBe(true);
    expect(body.next_cursor).toBe(made[1]);
    expect(body.data[0]).toMatchObject({
      status: 'succeeded',
      model: 'picture-sync',
      error: null,
      result_asset_ids: [expect.stringMatching(/^asset_/)],
    });
    expect(Date.parse(body.data[0].finished_at)).toBeGreaterThanOrEqual(
      Date.parse(body.data[0].created_at),
    );

    const second = (await page(`?limit=2&after=${body.next_cursor}`)).json();
    expect(second.data.map((job: { id: string }) => job.id)).toEqual([made[0]]);
    expect(second).toMatchObject({ has_more: false, next_cursor: null });

    // Another account sees none of them.
    const other = await bed.gateway.createToken();
    const theirs = await bed.gateway.app.inject({
      method: 'GET',
      url: '/api/dashboard/image-jobs',
      headers: { cookie: await signIn(other.accountId) },
    });
    expect(theirs.json().data).toEqual([]);
  });
});
