import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { request } from 'undici';
import { expect, it } from 'vitest';

import { OperatorService } from '../../src/operator/operator-service.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import {
  answerEverySlot,
  evaluationModelId,
  evaluationUrl,
} from '../evaluation/evaluation-test-bed.ts';
import { startFakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startFakeSearchUpstream } from '../search/fake-search-upstream.ts';
import {
  dropSchema,
  postgresConnectionString,
  probePostgres,
  uniqueSchema,
} from '../support/isolated-test-stores.ts';
import { spawnGatewayChild, type GatewayChild } from '../support/spawn-gateway-child.ts';
import { testModel } from '../support/test-gateway.ts';

const unreachableReason = await probePostgres();

/** An upstream that takes connections and never answers: a call stays in flight. */
async function startSilentUpstream() {
  const sockets: Socket[] = [];
  let onConnection = () => {};
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    onConnection();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: (count: number) =>
      new Promise<void>((resolve) => {
        onConnection = () => {
          if (sockets.length >= count) resolve();
        };
        onConnection();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function gatewayConfig(schemaUrl: string, folder: string, judgeUrl: string, searchUrl: string) {
  return {
    dataDir: folder,
    store: { backend: 'postgres', postgresUrl: schemaUrl },
    providers: { judge: { kind: 'anthropic', baseUrl: judgeUrl } },
    models: [testModel('judge-model', 'judge')],
    evaluation: { modelId: evaluationModelId, judgeModel: 'judge-model' },
    search: {
      providers: [
        { id: 'tavily-0', kind: 'tavily', baseUrl: searchUrl, apiKeyEnv: 'SEARCH_KEY_0' },
      ],
      pricePerRequest: 0.005,
    },
  };
}

const env = {
  SEARCH_KEY_0: 'search-key-0',
  // Every process of one PostgreSQL store seals compaction items with the same secret.
  SWITCHYARD_SEAL_KEY: 'dead-claims-test-seal-secret-0123456789',
};

function evaluate(gateway: GatewayChild, token: string, key: string) {
  return request(`${gateway.url}${evaluationUrl}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
      'ai-model-id': evaluationModelId,
      'ai-evaluation-model-specification-version': '4',
    },
    body: JSON.stringify({
      state: 'The agent closed the ticket.',
      questions: { closed: { type: 'boolean', instructions: 'Was the ticket closed?' } },
    }),
  });
}

function search(gateway: GatewayChild, token: string, key: string) {
  return request(`${gateway.url}/v1/search`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'x-request-id': key,
    },
    body: JSON.stringify({ query: 'who holds this key' }),
  });
}

/** Retries as a client does, waiting what retry-after says; the seconds until the key was free. */
async function secondsUntilFree(send: () => ReturnType<typeof search>, since: number) {
  for (;;) {
    const response = await send();
    const body = (await response.body.json()) as { error?: { code?: string } };
    if (response.statusCode !== 409) {
      expect(response.statusCode, JSON.stringify(body)).toBe(200);
      return (Date.now() - since) / 1000;
    }
    expect(body.error?.code).toBe('idempotency_in_progress');
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15);
    if (Date.now() - since > 30_000) throw new Error('the dead process still holds the key');
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
}

/**
 * kill -9 a gateway while an evaluation and a search run under their keys, then retry on
 * another process: the dead process's claims lapse within their lease, not the operation's
 * whole claim time (docs/decisions/0105), and retry-after never says more than that lease.
 */
it.skipIf(unreachableReason !== undefined)(
  "frees a dead process's evaluation and search keys within 30 s on PostgreSQL",
  async () => {
    const schema = uniqueSchema();
    const separator = postgresConnectionString.includes('?') ? '&' : '?';
    const schemaUrl = `${postgresConnectionString}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-dead-claims-'));
    const store = await openPostgresStore({ connectionString: postgresConnectionString, schema });
    const silent = await startSilentUpstream();
    const judge = await startFakeUpstream();
    const searchUpstream = await startFakeSearchUpstream();
    const children: GatewayChild[] = [];
    try {
      const operator = new OperatorService(store);
      const account = await operator.createAccount({ name: 'dead claims' });
      await operator.changeCredits({
        accountId: account.id,
        amount: 10_000_000,
        reason: 'test grant',
        kind: 'grant',
      });
      const { token } = await operator.createToken({
        accountId: account.id,
        name: 'dead claims',
        expiresAt: null,
        allowedModels: null,
      });

      const doomed = await spawnGatewayChild(
        gatewayConfig(schemaUrl, folder, silent.url, silent.url),
        env,
      );
      children.push(doomed);
      const inFlight = [
        evaluate(doomed, token, 'evaluation-key').catch(() => undefined),
        search(doomed, token, 'search-key').catch(() => undefined),
      ];
      // Both keys are claimed before their upstream calls start.
      await silent.connections(2);
      await doomed.kill();
      const killedAt = Date.now();
      await Promise.all(inFlight);

      const next = await spawnGatewayChild(
        gatewayConfig(schemaUrl, folder, judge.url, searchUpstream.url),
        env,
      );
      children.push(next);
      judge.enqueue(answerEverySlot);
      const [evaluationSeconds, searchSeconds] = await Promise.all([
        secondsUntilFree(() => evaluate(next, token, 'evaluation-key'), killedAt),
        secondsUntilFree(() => search(next, token, 'search-key'), killedAt),
      ]);
      expect(evaluationSeconds).toBeLessThan(30);
      expect(searchSeconds).toBeLessThan(30);
    } finally {
      for (const child of children) await child.kill();
      await Promise.all([silent.close(), judge.close(), searchUpstream.close()]);
      await store.close();
      await dropSchema(schema);
      await rm(folder, { recursive: true, force: true });
    }
  },
  90_000,
);
