import { describe, expect, it } from 'vitest';
import { conversationKey, longCacheMs, warmCacheMs, warmFor } from './conversation-key.ts';

const scope = 'acct-1:model-a';

/** The n-th turn of a messages-style conversation, its cache marker on the newest user block. */
function messagesTurn(turns: number, system: unknown = 'You are terse.'): Record<string, unknown> {
  const messages: unknown[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    if (turn > 1) messages.push({ role: 'assistant', content: `answer ${turn - 1}` });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'text',
          text: turn === 1 ? 'Refactor the parser.' : `More, ${turn}.`,
          ...(turn === turns ? { cache_control: { type: 'ephemeral' } } : {}),
        },
      ],
    });
  }
  return { model: 'model-a', max_tokens: 100, system, messages };
}

describe('conversationKey', () => {
  it('takes the first session header present, in order', () => {
    const body = messagesTurn(1);
    expect(
      conversationKey(
        { 'x-claude-code-session-id': 'cc-1', 'session-id': 's-1', 'x-session-id': 'x-1' },
        body,
        scope,
      ),
    ).toBe(`${scope}:h:cc-1`);
    expect(conversationKey({ 'session-id': 's-1', 'x-session-id': 'x-1' }, body, scope)).toBe(
      `${scope}:h:s-1`,
    );
    expect(conversationKey({ 'x-session-id': ['x-1', 'x-2'] }, body, scope)).toBe(`${scope}:h:x-1`);
    // An empty header is no signal.
    expect(
      conversationKey({ 'x-claude-code-session-id': '', 'x-session-id': 'x-1' }, body, scope),
    ).toBe(`${scope}:h:x-1`);
  });

  it('then prompt_cache_key, then metadata.user_id', () => {
    expect(
      conversationKey(
        {},
        { ...messagesTurn(1), prompt_cache_key: 'pck', metadata: { user_id: 'u' } },
        scope,
      ),
    ).toBe(`${scope}:c:pck`);
    expect(
      conversationKey({}, { ...messagesTurn(1), metadata: { user_id: 'user-7' } }, scope),
    ).toBe(`${scope}:u:user-7`);
  });

  it('bounds what a client-chosen id adds to the key', () => {
    const key = conversationKey({ 'session-id': 'x'.repeat(10_000) }, {}, scope) as string;
    expect(key.length).toBeLessThanOrEqual(scope.length + 3 + 200);
  });

  it('names a conversation by its opening, the same on every turn whatever the marker does', () => {
    const first = conversationKey({}, messagesTurn(1), scope);
    expect(first).toMatch(new RegExp(`^${scope}:o:[A-Za-z0-9_-]{22}$`));
    for (const turns of [2, 5, 20])
      expect(conversationKey({}, messagesTurn(turns), scope)).toBe(first);
    // A marked system prompt, as clients send it on every turn.
    const marked = [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }];
    const unmarked = [{ type: 'text', text: 'You are terse.' }];
    expect(conversationKey({}, messagesTurn(3, marked), scope)).toBe(
      conversationKey({}, messagesTurn(1, unmarked), scope),
    );
  });

  it('tells conversations apart by system prompt, first message and scope', () => {
    const base = conversationKey({}, messagesTurn(2), scope);
    expect(conversationKey({}, messagesTurn(2, 'You are verbose.'), scope)).not.toBe(base);
    const otherStart = messagesTurn(2);
    (otherStart.messages as { content: { text: string }[] }[])[0]!.content[0]!.text =
      'Fix the lexer.';
    expect(conversationKey({}, otherStart, scope)).not.toBe(base);
    expect(conversationKey({}, messagesTurn(2), 'acct-2:model-a')).not.toBe(base);
    expect(conversationKey({ 'session-id': 's' }, {}, 'acct-2:model-a')).not.toBe(
      conversationKey({ 'session-id': 's' }, {}, scope),
    );
  });

  it('reads a chat opening up to the first user message, system messages included', () => {
    const chat = (system: string, later: string) => ({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'Hello.' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'user', content: later },
      ],
    });
    expect(conversationKey({}, chat('Be brief.', 'One.'), scope)).toBe(
      conversationKey({}, chat('Be brief.', 'Two.'), scope),
    );
    expect(conversationKey({}, chat('Be brief.', 'One.'), scope)).not.toBe(
      conversationKey({}, chat('Be long.', 'One.'), scope),
    );
  });

  it('reads a responses opening from its instructions and first input', () => {
    const items = (later: string) => ({
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'Hello.' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'user', content: later },
      ],
    });
    expect(conversationKey({}, items('One.'), scope)).toBe(
      conversationKey({}, items('Two.'), scope),
    );
    expect(conversationKey({}, { instructions: 'Be brief.', input: 'Hello.' }, scope)).toMatch(
      /:o:/,
    );
    expect(conversationKey({}, { instructions: 'Be brief.', input: 'Hello.' }, scope)).not.toBe(
      conversationKey({}, { instructions: 'Be brief.', input: 'Bye.' }, scope),
    );
  });

  it('has no key for a body with no opening and no signal', () => {
    expect(conversationKey({}, { prompt: 'text' }, scope)).toBeUndefined();
  });

  it('hashes only the start of a very long opening', () => {
    const long = 'x'.repeat(20_000);
    expect(conversationKey({}, { instructions: long, input: 'a' }, scope)).toBe(
      conversationKey({}, { instructions: `${long}y`, input: 'a' }, scope),
    );
  });
});

describe('warmFor', () => {
  it('is five minutes without a one-hour marker', () => {
    expect(warmFor(messagesTurn(3))).toBe(warmCacheMs);
    expect(warmFor({ input: 'hi' })).toBe(warmCacheMs);
  });

  it('is an hour after a one-hour marker in the system, the tools or a message', () => {
    const hour = { type: 'ephemeral', ttl: '1h' };
    expect(warmFor(messagesTurn(1, [{ type: 'text', text: 's', cache_control: hour }]))).toBe(
      longCacheMs,
    );
    expect(
      warmFor({
        ...messagesTurn(1),
        tools: [{ name: 't', input_schema: {}, cache_control: hour }],
      }),
    ).toBe(longCacheMs);
    expect(
      warmFor({
        messages: [{ role: 'user', content: [{ type: 'text', text: 'u', cache_control: hour }] }],
      }),
    ).toBe(longCacheMs);
  });
});
