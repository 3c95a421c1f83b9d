import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Redis } from 'ioredis';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OperatorService } from '../../src/operator/operator-service.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { grantFundedToken } from '../support/grant-funded-token.ts';
import {
  dropSchema,
  postgresConnectionString,
  probePostgres,
  uniqueSchema,
} from '../support/isolated-test-stores.ts';
import { probeTestRedis, testRedisUrl } from '../support/connect-test-redis.ts';
import { spawnGatewayChildren, type GatewayChildren } from '../support/spawn-gateway-children.ts';
import { testModel } from '../support/test-gateway.ts';

/**
 * docs/routing.md, "Shared state": three gateway processes on one Redis and one PostgreSQL store,
 * a model on two keys of one provider. Once one process has been refused by a key with a 429,
 * the other two leave that key out within a second, without trying it first themselves.
 */

const KEY_A = 'sk-shared-route-a';
const KEY_B = 'sk-shared-route-b';

const problem = (await probePostgres()) ?? (await probeTestRedis());
const ciRequiresStores = (process.env.CI ?? 'false') !== 'false' && process.env.CI !== '';
if (problem !== undefined && !ciRequiresStores) {
  console.warn(`*** routing state shared across processes SKIPPED: ${problem}`);
}

describe.runIf(problem === undefined || ciRequiresStores)(
  'routing state shared through Redis by three gateway processes',
  () => {
    const schema = uniqueSchema();
    const keyPrefix = `switchyard-test:${randomUUID()}`;
    let upstream: FakeUpstream;
    let store: Store;
    let folder: string;
    let children: GatewayChildren | undefined;

    beforeAll(async () => {
      upstream = await startFakeUpstream();
      folder = await mkdtemp(path.join(tmpdir(), 'switchyard-shared-routing-'));
      store = await openPostgresStore({ connectionString: postgresConnectionString, schema });
      const schemaUrl = `${postgresConnectionString}${postgresConnectionString.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      children = await spawnGatewayChildren(
        [0, 1, 2].map((index) => ({
          providers: {
            chat: {
              kind: 'openai-chat',
              baseUrl: upstream.url,
              apiKeyEnv: ['SHARED_ROUTE_KEY_A', 'SHARED_ROUTE_KEY_B'],
            },
          },
          models: [
            testModel('pair', 'chat', {
              deployments: [{ provider: 'chat', upstreamModel: 'gpt-4o' }],
            }),
          ],
          dataDir: path.join(folder, `gateway-${index}`),
          store: {
            backend: 'postgres',
            postgresUrl: schemaUrl,
            redisUrl: testRedisUrl,
            redisKeyPrefix: keyPrefix,
          },
        })),
        { SHARED_ROUTE_KEY_A: KEY_A, SHARED_ROUTE_KEY_B: KEY_B },
      );
    }, 60_000);

    afterAll(async () => {
      await children?.close();
      await store?.close();
      await dropSchema(schema);
      await upstream?.close();
      await rm(folder, { recursive: true, force: true });
      const redis = new Redis(testRedisUrl);
      const keys = await redis.keys(`${keyPrefix}:*`);
      if (keys.length > 0) await redis.unlink(...keys);
      await redis.quit();
    });

    it('leaves a key another process was refused by out, without trying it', async () => {
      const { token } = await grantFundedToken(new OperatorService(store), {
        name: 'shared routing',
        credits: 100_000_000,
      });
      const [first, second, third] = children?.addresses ?? [];
      if (first === undefined || second === undefined || third === undefined)
        throw new Error('three gateways expected');
      let turn = 0;
      // A new conversation each call: no pin steers it, only the keys' health.
      const call = async (address: string) => {
        turn += 1;
        const response = await request(`${address}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'x-api-key': token, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'pair',
            max_tokens: 16,
            messages: [{ role: 'user', content: `question ${turn}` }],
          }),
        });
        await response.body.text();
        return {
          status: response.statusCode,
          deployment: String(response.headers['x-switchyard-deployment']),
        };
      };
      const callsWith = (key: string) =>
        upstream.requests.filter((recorded) => recorded.key === key).length;

      // Two calls each, both keys healthy: every process has loaded what a first call needs, so
      // the calls below take milliseconds, and each has just used both keys in turn.
      for (const address of [first, second, third]) {
        for (let index = 0; index < 2; index += 1) expect((await call(address)).status).toBe(200);
      }
      expect([callsWith(KEY_A), callsWith(KEY_B)]).toEqual([3, 3]);

      upstream.behaveForKey(KEY_A, { status: 429, headers: { 'retry-after': '30' } });
      // Round robin over the two keys reaches key A within two calls; the retry goes to key B.
      for (let attempt = 0; attempt < 2 && callsWith(KEY_A) === 3; attempt += 1) {
        expect((await call(first)).status).toBe(200);
      }
      expect(callsWith(KEY_A)).toBe(4);
      const keyBCalls = callsWith(KEY_B);
      const refusedAt = Date.now();

      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => call(index % 2 === 0 ? second : third)),
      );
      expect(Date.now() - refusedAt).toBeLessThan(1_000);
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
      for (const answer of answers) expect(answer.deployment).toMatch(/attempts=1$/);
      expect(callsWith(KEY_A)).toBe(4);
      expect(callsWith(KEY_B)).toBe(keyBCalls + 8);
    }, 30_000);
  },
);
