import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startStorageTestBed, type StorageTestBed } from './storage-test-bed.ts';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('storage routes: summary, list, download, delete', () => {
  let bed: StorageTestBed;
  beforeAll(async () => {
    bed = await startStorageTestBed();
  });
  afterAll(async () => bed.close());

  const inject = (
    method: 'GET' | 'DELETE',
    url: string,
    token: string,
    headers: Record<string, string> = {},
  ) => bed.gateway.app.inject({ method, url, headers: { ...bearer(token), ...headers } });

  it('refuses a request without a token and accepts Bearer or x-api-key', async () => {
    const { token } = await bed.createToken();
    const missing = await bed.gateway.app.inject({ method: 'GET', url: '/v1/storage' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('missing_token');
    const invalid = await inject('GET', '/v1/storage', 'sy_not-a-real-token');
    expect(invalid.statusCode).toBe(401);
    const viaApiKey = await bed.gateway.app.inject({
      method: 'GET',
      url: '/v1/storage',
      headers: { 'x-api-key': token },
    });
    expect(viaApiKey.statusCode).toBe(200);
    expect((await inject('GET', '/v1/storage', token)).statusCode).toBe(200);
  });

  it('admits any valid client token of the account, whatever its permission labels', async () => {
    const { token, accountId } = await bed.createToken(['model:read']);
    await bed.storeFile(accountId, 'abc');
    const response = await inject('GET', '/v1/storage/assets', token);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toHaveLength(1);
  });

  it('GET /v1/storage reports quota, usage, file count and retention', async () => {
    const { token, accountId } = await bed.createToken();
    const empty = await inject('GET', '/v1/storage', token);
    expect(empty.json()).toEqual({
      object: 'storage',
      quota_bytes: 5 * 1024 ** 3,
      used_bytes: 0,
      available_bytes: 5 * 1024 ** 3,
      file_count: 0,
      retention_days: 30,
      max_retention_days: 365,
    });
    await bed.storeFile(accountId, 'twelve bytes');
    await bed.storeFile(accountId, 'four');
    const used = (await inject('GET', '/v1/storage', token)).json();
    expect(used).toMatchObject({ used_bytes: 16, file_count: 2 });
    expect(used.available_bytes).toBe(5 * 1024 ** 3 - 16);
  });

  it('lists newest first with every field, pages with a stable cursor and hides other accounts', async () => {
    const { token, accountId } = await bed.createToken();
    const other = await bed.createToken();
    const base = Date.now() - 60_000;
    const stored = [];
    for (let index = 0; index < 5; index += 1) {
      stored.push(await bed.storeFile(accountId, `file ${index}`, { preparedAt: base + index }));
    }
    await bed.storeFile(other.accountId, 'not yours');

    const first = await inject('GET', '/v1/storage/assets?limit=2', token);
    expect(first.statusCode).toBe(200);
    const firstPage = first.json();
    expect(firstPage.data.map((asset: { id: string }) => asset.id)).toEqual([
      stored[4]?.id,
      stored[3]?.id,
    ]);
    expect(firstPage.has_more).toBe(true);
    expect(firstPage.data[0]).toEqual({
      id: stored[4]?.id,
      object: 'storage.asset',
      name: 'file.txt',
      size: 6,
      content_type: 'text/plain',
      sha256: stored[4]?.sha256,
      source: 'image_result',
      folder: 'images/results',
      created_at: Math.floor((base + 4) / 1000),
      delete_at: Math.floor((base + 4 + 30 * 86_400_000) / 1000),
      protected: false,
    });
    expect(firstPage.data[0].id).toMatch(/^asset_[0-9a-f]{32}$/);

    // A file added meanwhile (newer) does not shift the pages that follow the cursor.
    await bed.storeFile(accountId, 'newest');
    const seen = [...firstPage.data];
    let cursor = firstPage.next_cursor as string | null;
    while (cursor !== null) {
      const page = (
        await inject('GET', `/v1/storage/assets?limit=2&after=${encodeURIComponent(cursor)}`, token)
      ).json();
      seen.push(...page.data);
      cursor = page.next_cursor;
      if (!page.has_more) expect(cursor).toBeNull();
    }
    expect(seen.map((asset: { id: string }) => asset.id)).toEqual(
      [...stored].reverse().map((asset) => asset.id),
    );
  });

  it('accepts limit 1 and 200 and refuses 0, 201 and a cursor it did not make', async () => {
    const { token, accountId } = await bed.createToken();
    await bed.storeFile(accountId, 'a');
    await bed.storeFile(accountId, 'b');
    const one = await inject('GET', '/v1/storage/assets?limit=1', token);
    expect(one.json().data).toHaveLength(1);
    expect((await inject('GET', '/v1/storage/assets?limit=200', token)).statusCode).toBe(200);
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'limit=-1', 'after=bogus']) {
      const response = await inject('GET', `/v1/storage/assets?${query}`, token);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.type).toBe('invalid_request_error');
    }
  });

  it('downloads the bytes with content type, length and ETag', async () => {
    const { token, accountId } = await bed.createToken();
    const asset = await bed.storeFile(accountId, '0123456789', {
      name: 'résumé "final".png',
      contentType: 'image/png',
    });
    const response = await inject('GET', `/v1/storage/assets/${asset.id}/content`, token);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('0123456789');
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['content-length']).toBe('10');
    expect(response.headers.etag).toBe(`"${asset.sha256}"`);
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="r_sum_ _final_.png"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.png`,
    );
    const unchanged = await inject('GET', `/v1/storage/assets/${asset.id}/content`, token, {
      'if-none-match': `"${asset.sha256}"`,
    });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
  });

  it('serves byte ranges: 206 with Content-Range, 416 past the end, whole file on a stale If-Range', async () => {
    const { token, accountId } = await bed.createToken();
    const asset = await bed.storeFile(accountId, '0123456789');
    const url = `/v1/storage/assets/${asset.id}/content`;
    const middle = await inject('GET', url, token, { range: 'bytes=2-5' });
    expect(middle.statusCode).toBe(206);
    expect(middle.body).toBe('2345');
    expect(middle.headers['content-range']).toBe('bytes 2-5/10');
    expect(middle.headers['content-length']).toBe('4');
    const suffix = await inject('GET', url, token, { range: 'bytes=-3' });
    expect(suffix.body).toBe('789');
    const open = await inject('GET', url, token, { range: 'bytes=9-' });
    expect(open.body).toBe('9');
    const beyond = await inject('GET', url, token, { range: 'bytes=10-' });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */10');
    expect(beyond.json().error.code).toBe('range_not_satisfiable');
    const stale = await inject('GET', url, token, { range: 'bytes=2-5', 'if-range': '"other"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.body).toBe('0123456789');
  });

  it('answers another account’s file exactly like an unknown id, for download and delete', async () => {
    const owner = await bed.createToken();
    const stranger = await bed.createToken();
    const asset = await bed.storeFile(owner.accountId, 'private');
    const unknownId = 'asset_00000000000000000000000000000000';
    for (const [method, suffix] of [
      ['GET', '/content'],
      ['DELETE', ''],
    ] as const) {
      const foreign = await inject(
        method,
        `/v1/storage/assets/${asset.id}${suffix}`,
        stranger.token,
      );
      const unknown = await inject(
        method,
        `/v1/storage/assets/${unknownId}${suffix}`,
        stranger.token,
      );
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual(unknown.json());
    }
    const listed = (await inject('GET', '/v1/storage/assets', stranger.token)).json();
    expect(listed.data).toEqual([]);
    expect(await bed.gateway.storage.getAsset(owner.accountId, asset.id)).toBeDefined();
  });

  it('DELETE answers 204 and frees the space, 409 while protected, 404 afterwards', async () => {
    const { token, accountId } = await bed.createToken();
    const kept = await bed.storeFile(accountId, 'in use by a job', { protected: true });
    const loose = await bed.storeFile(accountId, 'free to go');

    const refused = await inject('DELETE', `/v1/storage/assets/${kept.id}`, token);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('asset_protected');

    const deleted = await inject('DELETE', `/v1/storage/assets/${loose.id}`, token);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(await bed.blobs.stat(`assets/${loose.id.slice(6, 8)}/${loose.id}`)).toBeUndefined();
    expect((await inject('DELETE', `/v1/storage/assets/${loose.id}`, token)).statusCode).toBe(404);
    expect((await inject('GET', `/v1/storage/assets/${loose.id}/content`, token)).statusCode).toBe(
      404,
    );
    const summary = (await inject('GET', '/v1/storage', token)).json();
    expect(summary).toMatchObject({ used_bytes: kept.size, file_count: 1 });

    expect(await bed.gateway.storage.setProtected(accountId, kept.id, false)).toBe(true);
    expect((await inject('DELETE', `/v1/storage/assets/${kept.id}`, token)).statusCode).toBe(204);
  });

  it('DELETE answers 202 pending when the blob cannot be removed; the space stays counted', async () => {
    const { token, accountId } = await bed.createToken();
    const asset = await bed.storeFile(accountId, 'stubborn');
    bed.blobs.failDeletes = true;
    try {
      const response = await inject('DELETE', `/v1/storage/assets/${asset.id}`, token);
      expect(response.statusCode).toBe(202);
      expect(response.json()).toEqual({
        id: asset.id,
        object: 'storage.asset.deletion',
        pending: true,
      });
    } finally {
      bed.blobs.failDeletes = false;
    }
    const summary = (await inject('GET', '/v1/storage', token)).json();
    expect(summary).toMatchObject({ used_bytes: 8, file_count: 0 });
    expect((await inject('GET', '/v1/storage/assets', token)).json().data).toEqual([]);
  });
});
