import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { grantFundedToken } from '../support/grant-funded-token.ts';
import { probeTestRedis } from '../support/connect-test-redis.ts';
import { probePostgres } from '../support/isolated-test-stores.ts';
import { startScaleOutSet, upstreamKeys, type ScaleOutSet } from './scale-out-set.ts';
import {
  chatBody,
  runLoad,
  sendToGateway,
  type GatewayAnswer,
  type LoadOutcome,
} from './send-to-gateway.ts';

/**
 * docs/deployment.md, proven: three gateway processes started from deploy/switchyard.config.json
 * on one PostgreSQL database, this machine's Redis and an S3-protocol server, with the upstreams
 * faked in this process. Money stays exact across them, limits and state are shared, a kill -9
 * loses nothing and charges nothing twice, and a rolling restart fails no request.
 */

const problem = (await probePostgres()) ?? (await probeTestRedis());
const ciRequiresStores = (process.env.CI ?? 'false') !== 'false' && process.env.CI !== '';
if (problem !== undefined && !ciRequiresStores) {
  console.warn(`*** scale-out suite SKIPPED: ${problem}`);
}

/** Seconds a dead process's concurrency slots and idempotency claims outlive it (operations.md). */
const leaseSeconds = 15;
/** `billing.holdTtlSeconds` of the example (the default). */
const holdTtlSeconds = 3600;

const messagesBody = {
  model: 'claude-sonnet-4-5',
  max_tokens: 16,
  messages: [{ role: 'user', content: 'hi' }],
};

async function tokensOf(set: ScaleOutSet, accountId: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const { token } = await set.operator.createToken({
      accountId,
      name: `token ${index}`,
      expiresAt: null,
      allowedModels: null,
    });
    tokens.push(token);
  }
  return tokens;
}

/** Every answered call has its usage record, no record is there twice, and the balance adds up. */
async function expectExactLedger(
  set: ScaleOutSet,
  accountId: string,
  grant: number,
  answeredRequestIds: string[],
): Promise<void> {
  const records = await set.store.usage.listUsage(accountId, 10_000);
  const recordIds = records.map((record) => record.requestId);
  expect(new Set(recordIds).size).toBe(recordIds.length);
  expect(answeredRequestIds.filter((id) => !recordIds.includes(id))).toEqual([]);
  const charged = records.reduce((sum, record) => sum + record.cost, 0);
  expect(records.every((record) => record.shortfall === 0)).toBe(true);
  expect(await set.store.ledger.getBalance(accountId)).toEqual({
    balance: grant - charged,
    held: 0,
    available: grant - charged,
  });
}

const answeredIds = (outcomes: LoadOutcome[]) =>
  outcomes.flatMap((outcome) => (outcome.status === 200 ? [outcome.requestId as string] : []));

describe.runIf(problem === undefined || ciRequiresStores)(
  'three gateway processes on PostgreSQL, Redis and S3 (docs/deployment.md)',
  () => {
    let set: ScaleOutSet;
    const urls = () => set.gateways.map((gateway) => gateway.url);

    beforeAll(async () => {
      // Started together on an empty database: each waits for the migration lock.
      set = await startScaleOutSet(3);
    }, 90_000);
    afterAll(async () => set?.close(), 60_000);

    it('answers exactly what one account can afford of 300 calls at once, across the processes', async () => {
      const probe = await grantFundedToken(set.operator, { name: 'probe', credits: 1_000_000 });
      const usage = { input: 3, output: 16 };
      set.upstream.enqueue({ output: [{ text: 'ok' }], usage });
      const first = await sendToGateway(`${urls()[0]}/v1/messages`, {
        token: probe.token,
        body: messagesBody,
      });
      expect(first.status, first.text).toBe(200);
      const [probeRecord] = await set.store.usage.listUsage(probe.accountId, 10);
      const callPrice = probeRecord?.cost ?? 0;
      expect(callPrice).toBeGreaterThan(0);

      const affordable = 100;
      const grant = affordable * callPrice;
      const account = await set.operator.createAccount({ name: 'three hundred', isAdmin: false });
      await set.operator.changeCredits({
        accountId: account.id,
        amount: grant,
        reason: 'grant',
        kind: 'grant',
      });
      // 20 people of one team, 15 calls each: within each token's limits, not the balance's.
      const tokens = await tokensOf(set, account.id, 20);
      set.upstream.enqueue(
        ...Array.from({ length: 300 }, () => ({ output: [{ text: 'ok' }], usage })),
      );
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, index) =>
          sendToGateway(`${urls()[index % 3]}/v1/messages`, {
            token: tokens[index % tokens.length] as string,
            body: messagesBody,
          }),
        ),
      );
      // The replies of the refused calls were never asked for.
      set.upstream.reset();
      const statuses = answers.map((answer) => answer.status);
      const answered = answers.filter((answer) => answer.status === 200);
      expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
      // docs/decisions/0100: at most the part of each hold above its charge is reserved in vain.
      expect(answered.length).toBeGreaterThanOrEqual(90);
      expect(answered.length).toBeLessThanOrEqual(affordable);
      await expectExactLedger(
        set,
        account.id,
        grant,
        answered.map((answer) => answer.headers['x-request-id'] as string),
      );
    }, 60_000);

    it('lets a 60-a-minute token make 60 calls across the three processes, not 180', async () => {
      const { token } = await grantFundedToken(set.operator, {
        name: 'sixty',
        credits: 100_000_000,
      });
      const statuses: number[] = [];
      for (let wave = 0; wave < 9; wave += 1) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            sendToGateway(`${urls()[index % 3]}/v1/chat/completions`, {
              token,
              body: chatBody('gpt-4.1-mini', `wave ${wave} call ${index}`),
            }),
          ),
        );
        statuses.push(...answers.map((answer) => answer.status));
      }
      expect(statuses.filter((status) => status === 200)).toHaveLength(60);
      expect(statuses.filter((status) => status === 429)).toHaveLength(30);
    }, 60_000);

    it('honours on one process what another made: a stored response, a compaction item, an idempotent image job and its file', async () => {
      const [first, second, third] = urls() as [string, string, string];
      const { token } = await grantFundedToken(set.operator, {
        name: 'state',
        credits: 100_000_000,
      });

      set.upstream.enqueue({ output: [{ text: 'Noted: heliotrope.' }] });
      const stored = await sendToGateway(`${first}/v1/responses`, {
        token,
        body: { model: 'gpt-5', input: 'Remember the word heliotrope.' },
      });
      expect(stored.status, stored.text).toBe(200);
      set.upstream.enqueue({ output: [{ text: 'The word was heliotrope.' }] });
      const continued = await sendToGateway(`${second}/v1/responses`, {
        token,
        body: { model: 'gpt-5', previous_response_id: stored.json().id, input: 'Which word?' },
      });
      expect(continued.status, continued.text).toBe(200);
      expect(set.upstream.requests.at(-1)?.rawBody).toContain('Remember the word heliotrope.');

      set.upstream.enqueue({ output: [{ text: 'SUMMARY: the word is amaranth.' }] });
      const compacted = await sendToGateway(`${second}/v1/responses/compact`, {
        token,
        body: { model: 'gpt-5', input: [{ role: 'user', content: 'Remember the word amaranth.' }] },
      });
      expect(compacted.status, compacted.text).toBe(200);
      const items = compacted.json<{ output: Array<Record<string, unknown>> }>().output;
      expect(items.at(-1)?.type).toBe('compaction');
      set.upstream.enqueue({ output: [{ text: 'amaranth' }] });
      const afterCompaction = await sendToGateway(`${third}/v1/responses`, {
        token,
        body: { model: 'gpt-5', input: [...items, { role: 'user', content: 'Which word?' }] },
      });
      expect(afterCompaction.status, afterCompaction.text).toBe(200);
      expect(set.upstream.requests.at(-1)?.rawBody).toContain('SUMMARY: the word is amaranth.');

      const imageRequest = { model: 'flux-kontext-pro', prompt: 'a lighthouse at dusk' };
      const created = await sendToGateway(`${first}/v1/images/generations`, {
        token,
        body: imageRequest,
        headers: { 'idempotency-key': 'scale-out-lighthouse' },
      });
      expect(created.status, created.text).toBe(200);
      const job = created.json<{ id: string; images: Array<{ download_path: string }> }>();
      const replayed = await sendToGateway(`${second}/v1/images/generations`, {
        token,
        body: imageRequest,
        headers: { 'idempotency-key': 'scale-out-lighthouse' },
      });
      expect(replayed.json().id).toBe(job.id);
      expect(set.images.submits('bfl')).toBe(1);
      const polled = await sendToGateway(`${third}/v1/images/generations/${job.id}`, { token });
      expect(polled.json().status).toBe('succeeded');
      const download = await sendToGateway(`${third}${job.images[0]?.download_path}`, { token });
      expect(download.status).toBe(200);
      expect(Buffer.from(download.text, 'latin1').equals(set.images.produced[0] as Buffer)).toBe(
        true,
      );
    }, 60_000);

    it('leaves out on every process an upstream key one process was refused by', async () => {
      const [first, second, third] = urls() as [string, string, string];
      const { token } = await grantFundedToken(set.operator, {
        name: 'routing',
        credits: 100_000_000,
      });
      const callsWith = (key: string) =>
        set.upstream.requests.filter((recorded) => recorded.key === key).length;
      let turn = 0;
      const call = async (url: string) => {
        turn += 1;
        const answer = await sendToGateway(`${url}/v1/messages`, {
          token,
          body: { ...messagesBody, messages: [{ role: 'user', content: `question ${turn}` }] },
        });
        return { status: answer.status, deployment: answer.headers['x-switchyard-deployment'] };
      };
      set.upstream.behaveForKey(upstreamKeys.anthropic, {
        status: 429,
        headers: { 'retry-after': '30' },
      });
      const before = callsWith(upstreamKeys.anthropic);
      // Round robin over the two keys reaches the refusing one within two calls; the retry goes
      // to the other.
      for (
        let attempt = 0;
        attempt < 2 && callsWith(upstreamKeys.anthropic) === before;
        attempt += 1
      ) {
        expect((await call(first)).status).toBe(200);
      }
      expect(callsWith(upstreamKeys.anthropic)).toBe(before + 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => call(index % 2 === 0 ? second : third)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
      for (const answer of answers) expect(answer.deployment).toMatch(/attempts=1$/);
      expect(callsWith(upstreamKeys.anthropic)).toBe(before + 1);
      set.upstream.clearKeyBehaviour(upstreamKeys.anthropic);
    }, 30_000);

    it('lands a settlement PostgreSQL refused, kept by a process that never came back, once (docs/decisions/0161)', async () => {
      const [, middle] = set.gateways;
      if (middle === undefined) throw new Error('three gateways expected');
      const account = await set.operator.createAccount({ name: 'spooled', isAdmin: false });
      await set.operator.changeCredits({
        accountId: account.id,
        amount: 100_000_000,
        reason: 'grant',
        kind: 'grant',
      });
      const { token, apiKey } = await set.operator.createToken({
        accountId: account.id,
        name: 'spooled',
        expiresAt: null,
        allowedModels: null,
      });
      // PostgreSQL refuses this token's usage records, as it would while failing over.
      await set.runSql(`
        create function refuse_spooled_usage() returns trigger language plpgsql as $$
        begin raise exception 'the store is failing over'; end $$;
        create trigger refuse_spooled_usage before insert on usage_records for each row
        when (new.api_key_id = '${apiKey.id}') execute function refuse_spooled_usage();`);
      const spool = `${set.redisKeyPrefix}:settlements`;
      try {
        const answer = await sendToGateway(`${middle.url}/v1/chat/completions`, {
          token,
          body: chatBody('gpt-4.1-mini', 'charge me later'),
        });
        expect(answer.status, answer.text).toBe(200);
        expect(await set.redis.hlen(spool)).toBe(1);
        expect((await set.store.ledger.getBalance(account.id)).held).toBeGreaterThan(0);
        await middle.kill();
      } finally {
        await set.runSql(
          'drop trigger refuse_spooled_usage on usage_records; drop function refuse_spooled_usage();',
        );
      }
      // Its replacement starts with nothing of its own: what it lands comes from Redis.
      await middle.start();
      expect(await set.redis.hlen(spool)).toBe(0);
      const records = await set.store.usage.listUsage(account.id, 10);
      expect(records).toHaveLength(1);
      expect(records[0]?.cost).toBeGreaterThan(0);
      await expectExactLedger(set, account.id, 100_000_000, []);
    }, 60_000);

    it('keeps serving through a kill -9 under load, frees what the dead process held in time, and charges each call once', async () => {
      const [first, second] = urls() as [string, string, string];
      const victim = set.gateways[2];
      if (victim === undefined) throw new Error('three gateways expected');
      const slots = await grantFundedToken(set.operator, { name: 'slots', credits: 100_000_000 });
      const load = await grantFundedToken(set.operator, { name: 'load', credits: 100_000_000 });
      const imaging = await grantFundedToken(set.operator, {
        name: 'imaging',
        credits: 100_000_000,
      });
      const loadTokens = await tokensOf(set, load.accountId, 40);

      // The dead process's concurrency slots: the example's 16 per token, all in calls that hang.
      const before = set.upstream.requests.length;
      set.upstream.enqueue(
        ...Array.from({ length: 16 }, () => ({ delayMs: 20_000, output: [{ text: 'late' }] })),
      );
      const hanging = Array.from({ length: 16 }, (_, index) =>
        sendToGateway(`${victim.url}/v1/chat/completions`, {
          token: slots.token,
          body: chatBody('gpt-4.1-mini', `hanging ${index}`),
        }).catch((error: unknown) => error),
      );
      // An image job (and its create call's idempotency claim) the dead process was running.
      set.images.holdJobs = true;
      const imageRequest = { model: 'flux-kontext-pro', prompt: 'a harbour at night' };
      const submitsBefore = set.images.submits('bfl');
      const abandoned = sendToGateway(`${victim.url}/v1/images/generations`, {
        token: imaging.token,
        body: imageRequest,
        headers: { 'idempotency-key': 'scale-out-harbour' },
      }).catch((error: unknown) => error);
      const waitingSince = Date.now();
      while (
        set.upstream.requests.length < before + 16 ||
        set.images.submits('bfl') === submitsBefore
      ) {
        if (Date.now() - waitingSince > 10_000) throw new Error(`not in flight:\n${victim.output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      // Paced by the upstream, so the load's tokens stay within their 60 calls a minute.
      set.upstream.behaveForKey(upstreamKeys.openai, { delayMs: 100 });
      let rotation = urls();
      const traffic = runLoad({
        rotation: () => rotation,
        tokens: loadTokens,
        workers: 6,
        model: 'gpt-4.1-mini',
      });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await victim.kill();
      const killedAt = Date.now();
      // A proxy stops sending to a server whose connections fail.
      rotation = [first, second];
      await Promise.all([...hanging, abandoned]);

      // The slots come free once the dead process's leases lapse, not before; meanwhile the
      // client of the image call retries it elsewhere, refused while the dead process's claim on
      // its key lasts.
      set.images.holdJobs = false;
      const refused = await sendToGateway(`${first}/v1/chat/completions`, {
        token: slots.token,
        body: chatBody('gpt-4.1-mini', 'slot wanted'),
      });
      expect(refused.status).toBe(429);
      /** Retries `send` until it answers other than `busy`; when that answer was sent. */
      const retryUntilFree = async (send: () => Promise<GatewayAnswer>, busy: number) => {
        const statuses: number[] = [];
        for (;;) {
          // When the call was sent, not answered: a slow answer says nothing of the lease.
          const sentAt = Date.now();
          const answer = await send();
          statuses.push(answer.status);
          if (answer.status !== busy || Date.now() - killedAt > 40_000) {
            return { answer, statuses, freedAt: sentAt };
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      };
      const [slot, image] = await Promise.all([
        retryUntilFree(
          () =>
            sendToGateway(`${second}/v1/chat/completions`, {
              token: slots.token,
              body: chatBody('gpt-4.1-mini', 'slot wanted'),
            }),
          429,
        ),
        retryUntilFree(
          () =>
            sendToGateway(`${first}/v1/images/generations`, {
              token: imaging.token,
              body: imageRequest,
              headers: { 'idempotency-key': 'scale-out-harbour' },
            }),
          409,
        ),
      ]);
      expect(slot.answer.status).toBe(200);
      expect(slot.freedAt - killedAt).toBeLessThanOrEqual((leaseSeconds + 3) * 1000);
      expect(image.statuses[0], 'the dead process held the key').toBe(409);
      expect([200, 202], image.answer.text).toContain(image.answer.status);
      expect(image.freedAt - killedAt).toBeLessThanOrEqual((leaseSeconds + 3) * 1000);
      const outcomes = await traffic.stop();
      set.upstream.clearKeyBehaviour(upstreamKeys.openai);
      const survivors = outcomes.filter((outcome) => outcome.gateway !== victim.url);
      expect(survivors.filter((outcome) => outcome.status !== 200)).toEqual([]);
      expect(survivors.length).toBeGreaterThan(20);

      // The same job, resumed by a survivor once its lease lapsed, without a second submit.
      let job = image.answer.json<{ id: string; status: string }>();
      while (job.status !== 'succeeded' && Date.now() - killedAt < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        job = (
          await sendToGateway(`${second}/v1/images/generations/${job.id}`, { token: imaging.token })
        ).json();
      }
      expect(job.status).toBe('succeeded');
      expect(set.images.submits('bfl')).toBe(submitsBefore + 1);

      // The dead process's holds stay until they expire, then the sweeper of any process
      // releases them (operations.md: billing.holdTtlSeconds, swept every minute); run here as
      // that sweep runs once their time has come.
      expect((await set.store.ledger.getBalance(slots.accountId)).held).toBeGreaterThan(0);
      await set.store.ledger.releaseExpiredHolds(Date.now() + holdTtlSeconds * 1000 + 1);
      await expectExactLedger(set, slots.accountId, 100_000_000, []);
      await expectExactLedger(set, imaging.accountId, 100_000_000, []);
      await expectExactLedger(set, load.accountId, 100_000_000, answeredIds(outcomes));
      const slotRecords = await set.store.usage.listUsage(slots.accountId, 100);
      // The call that found a free slot, nothing of those the kill cut; the image once.
      expect(slotRecords.filter((record) => record.cost > 0)).toHaveLength(1);
      const imageRecords = await set.store.usage.listUsage(imaging.accountId, 100);
      expect(imageRecords.filter((record) => record.cost > 0)).toHaveLength(1);

      await victim.start();
    }, 120_000);

    it('restarts every process in turn under load without failing a call', async () => {
      const { accountId } = await grantFundedToken(set.operator, {
        name: 'rolling',
        credits: 100_000_000,
      });
      const tokens = await tokensOf(set, accountId, 40);
      // Every call takes a while upstream, so each process has calls in flight when it stops.
      set.upstream.behaveForKey(upstreamKeys.openai, { delayMs: 300 });
      let rotation = urls();
      const traffic = runLoad({
        rotation: () => rotation,
        tokens,
        workers: 8,
        model: 'gpt-4.1-mini',
      });
      let drained = 0;
      for (const gateway of set.gateways) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        // docs/deployment.md, "Rolling restarts": out of the proxy, stopped, started, back in.
        rotation = rotation.filter((url) => url !== gateway.url);
        drained += traffic.inFlight(gateway.url);
        expect(await gateway.terminate(), gateway.output).toBe(0);
        await gateway.start();
        rotation = [...rotation, gateway.url];
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      const outcomes = await traffic.stop();
      set.upstream.clearKeyBehaviour(upstreamKeys.openai);
      expect(outcomes.filter((outcome) => outcome.status !== 200)).toEqual([]);
      expect(drained).toBeGreaterThan(0);
      await expectExactLedger(set, accountId, 100_000_000, answeredIds(outcomes));
    }, 150_000);
  },
);
