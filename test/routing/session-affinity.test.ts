import { beforeEach, describe, expect, it } from 'vitest';
import { keyIdOf } from '../../src/catalog/upstream-key.ts';
import type { RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed, type RoutingBed } from './routing-test-bed.ts';

interface Turn {
  role: 'user' | 'assistant';
  content: { type: 'text'; text: string; cache_control?: { type: 'ephemeral'; ttl?: '1h' } }[];
}

/**
 * A messages-style conversation as a coding client sends it: the whole history every turn, the
 * cache marker moved to the newest user block.
 */
class Conversation {
  readonly #bed: RoutingBed;
  readonly #headers: Record<string, string>;
  readonly #turns: Turn[] = [];
  readonly #system: string;
  readonly #marker: { type: 'ephemeral'; ttl?: '1h' };

  constructor(bed: RoutingBed, name: string, headers: Record<string, string> = {}, ttl?: '1h') {
    this.#bed = bed;
    this.#headers = headers;
    this.#marker = ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
    this.#system = `You are the assistant of conversation ${name}. `.repeat(40);
  }

  /** Sends the next user turn; returns the cache read tokens and the key that answered. */
  async say(text: string): Promise<{ cacheRead: number; key: string | undefined }> {
    for (const turn of this.#turns) for (const block of turn.content) delete block.cache_control;
    this.#turns.push({
      role: 'user',
      content: [{ type: 'text', text, cache_control: this.#marker }],
    });
    const mark = this.#bed.fake.requests.length;
    const response = await this.#bed.send('cached', {
      headers: this.#headers,
      body: { model: 'cached', max_tokens: 100, system: this.#system, messages: this.#turns },
    });
    expect(response.statusCode).toBe(200);
    const answer = response.json<{
      content: { type: string; text?: string }[];
      usage: { cache_read_input_tokens?: number };
    }>();
    const reply = answer.content.find((block) => block.type === 'text')?.text ?? '';
    this.#turns.push({ role: 'assistant', content: [{ type: 'text', text: reply }] });
    const answered = this.#bed.fake.requests.slice(mark).at(-1) as RecordedRequest;
    return { cacheRead: answer.usage.cache_read_input_tokens ?? 0, key: answered.key };
  }
}

/**
 * Session affinity keeps a conversation on the key whose prompt cache holds it (the fake keeps a
 * cache per key), while distinct conversations still spread over every key.
 */
describe('session affinity over three keys', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { main: 3 },
      models: [routedModel('cached', [{ provider: 'main', upstreamModel: 'cached-upstream' }])],
      promptCache: true,
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  it('keeps a 20-turn conversation with a session header on one warm key', async () => {
    const conversation = new Conversation(bed, 'long', { 'x-claude-code-session-id': 'sess-long' });
    const keys = new Set<string | undefined>();
    for (let turn = 1; turn <= 20; turn += 1) {
      const { cacheRead, key } = await conversation.say(`Step ${turn}: carry on.`);
      keys.add(key);
      if (turn > 1) expect(cacheRead, `turn ${turn}`).toBeGreaterThan(0);
    }
    expect(keys.size).toBe(1);

    // Thirty other sessions, interleaved with turns of the first, spread over all three keys.
    const firstKeys = new Map<string, number>();
    for (let index = 0; index < 30; index += 1) {
      const other = new Conversation(bed, `other-${index}`, {
        'x-claude-code-session-id': `sess-${index}`,
      });
      const { key } = await other.say('Hello.');
      firstKeys.set(key as string, (firstKeys.get(key as string) ?? 0) + 1);
      if (index % 10 === 0) {
        const { cacheRead, key: longKey } = await conversation.say(`Aside ${index}.`);
        expect(cacheRead).toBeGreaterThan(0);
        expect(keys.has(longKey)).toBe(true);
      }
    }
    for (const key of bed.keys.main as string[]) {
      expect(firstKeys.get(key) ?? 0).toBeGreaterThanOrEqual(8);
    }
  });

  it('keeps a conversation without a session header on one key by its opening', async () => {
    const conversation = new Conversation(bed, 'headerless');
    const keys = new Set<string | undefined>();
    for (let turn = 1; turn <= 8; turn += 1) {
      const { cacheRead, key } = await conversation.say(`Point ${turn}.`);
      keys.add(key);
      if (turn > 1) expect(cacheRead, `turn ${turn}`).toBeGreaterThan(0);
      // Other traffic in between moves the round robin on.
      await bed.send('cached');
    }
    expect(keys.size).toBe(1);
  });

  it('moves the pin when its key starts answering 429, and keeps the new one', async () => {
    const conversation = new Conversation(bed, 'moving', { 'session-id': 'sess-moving' });
    const { key: first } = await conversation.say('Begin.');
    for (let turn = 2; turn <= 4; turn += 1) {
      expect((await conversation.say(`Turn ${turn}.`)).key).toBe(first);
    }

    bed.fake.behaveForKey(first as string, { status: 429, headers: { 'retry-after': '20' } });
    const moved = await conversation.say('Turn 5.');
    expect(moved.key).not.toBe(first);
    // A cold cache on the new key, warm from the next turn on.
    expect(moved.cacheRead).toBe(0);

    // The old key's cooldown over and the key healthy again, the conversation stays put.
    bed.advance(21_000);
    bed.fake.clearKeyBehaviour(first as string);
    for (let turn = 6; turn <= 10; turn += 1) {
      const { key, cacheRead } = await conversation.say(`Turn ${turn}.`);
      expect(key).toBe(moved.key);
      expect(cacheRead).toBeGreaterThan(0);
    }
  });

  it('keeps a pin five minutes after the last turn, an hour after a one-hour marker', async () => {
    const pinOf = (session: string) =>
      bed.gateway.router.state.pinned(`${bed.accountId}:cached:h:${session}`);
    const targetOf = (key: string | undefined) => `main/cached-upstream#${keyIdOf(key as string)}`;

    const short = new Conversation(bed, 'short', { 'x-session-id': 'sess-short' });
    const { key: shortKey } = await short.say('Begin.');
    expect(pinOf('sess-short')).toBe(targetOf(shortKey));
    bed.advance(5 * 60_000 - 1);
    expect(pinOf('sess-short')).toBe(targetOf(shortKey));
    bed.advance(1);
    expect(pinOf('sess-short')).toBeUndefined();

    const long = new Conversation(bed, 'long-lived', { 'x-session-id': 'sess-hour' }, '1h');
    const { key: longKey } = await long.say('Begin.');
    bed.advance(30 * 60_000);
    // Half an hour idle: still on its key, its cache still warm there.
    const later = await long.say('Still there?');
    expect(later.key).toBe(longKey);
    expect(later.cacheRead).toBeGreaterThan(0);
    bed.advance(60 * 60_000 - 1);
    expect(pinOf('sess-hour')).toBe(targetOf(longKey));
    bed.advance(1);
    expect(pinOf('sess-hour')).toBeUndefined();
  });
});
