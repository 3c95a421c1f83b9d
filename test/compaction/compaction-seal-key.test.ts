import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCompactionSummary } from '../../src/compaction/compaction-instruction.ts';
import { createCompactionSeal } from '../../src/compaction/compaction-seal.ts';
import { sealSecretFileName } from '../../src/compaction/load-compaction-seal-secret.ts';
import { composeGateway } from '../../src/compose.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

const sharedSecret = 'a-secret-every-gateway-process-shares-0123456789';

describe('the compaction seal key', () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream();
  });
  afterAll(async () => {
    await fake.close();
  });

  const config = () => ({
    providers: { chat: { kind: 'openai-chat', baseUrl: fake.url } },
    models: [testModel('m', 'chat')],
  });

  describe('from SWITCHYARD_SEAL_KEY', () => {
    let gateway: TestGateway;
    beforeAll(async () => {
      process.env.SWITCHYARD_SEAL_KEY = sharedSecret;
      try {
        gateway = await startTestGateway(config());
      } finally {
        delete process.env.SWITCHYARD_SEAL_KEY;
      }
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('opens an item another process sealed with the same secret, and keeps no key file', async () => {
      const { token, accountId } = await gateway.createToken({ credits: 10_000_000 });
      const sealed = createCompactionSeal(sharedSecret).seal(
        { kind: 'summary', summary: 'Sealed by a sibling process.' },
        accountId,
      );
      fake.reset();
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/v1/responses',
        headers: { authorization: `Bearer ${token}` },
        payload: {
          model: 'm',
          input: [
            { type: 'compaction', encrypted_content: sealed },
            { role: 'user', content: 'Go on.' },
          ],
        },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(fake.requests[0]?.rawBody).toContain(
        JSON.stringify(renderCompactionSummary('Sealed by a sibling process.')).slice(1, -1),
      );
      await expect(stat(path.join(gateway.config.dataDir, sealSecretFileName))).rejects.toThrow();
    });
  });

  it('is made once in the data directory on the embedded store, owner-readable only', async () => {
    const gateway = await startTestGateway(config());
    try {
      const file = path.join(gateway.config.dataDir, sealSecretFileName);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await gateway.close();
    }
  });

  it('must be configured when processes share a PostgreSQL store; start-up says so', async () => {
    const shared = parseConfig({
      ...config(),
      store: { backend: 'postgres', postgresUrl: 'postgres://nobody@127.0.0.1:9/none' },
    });
    await expect(composeGateway(shared, { env: {} })).rejects.toThrow(
      /SWITCHYARD_SEAL_KEY must be set when store.backend is "postgres"/,
    );
  });
});
