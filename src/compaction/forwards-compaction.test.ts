import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config.ts';
import { forwardsCompaction } from './forwards-compaction.ts';

function provider(settings: Record<string, unknown>) {
  const config = parseConfig({ providers: { p: settings } });
  return config.providers.p as NonNullable<(typeof config.providers)[string]>;
}

describe('forwardsCompaction', () => {
  it("forwards by default to OpenAI's own API only", () => {
    expect(
      forwardsCompaction(provider({ kind: 'openai-responses', baseUrl: 'https://api.openai.com' })),
    ).toBe(true);
    expect(
      forwardsCompaction(
        provider({ kind: 'openai-responses', baseUrl: 'http://vllm.internal/v1' }),
      ),
    ).toBe(false);
  });

  it('follows the operator flag either way', () => {
    const base = { kind: 'openai-responses', baseUrl: 'https://api.openai.com' };
    expect(forwardsCompaction(provider({ ...base, forwardCompaction: false }))).toBe(false);
    expect(
      forwardsCompaction(
        provider({ ...base, baseUrl: 'https://proxy.example', forwardCompaction: true }),
      ),
    ).toBe(true);
  });

  it('never forwards to another dialect, and the configuration refuses the flag there', () => {
    expect(
      forwardsCompaction(provider({ kind: 'openai-chat', baseUrl: 'https://api.openai.com' })),
    ).toBe(false);
    expect(() =>
      provider({
        kind: 'anthropic',
        baseUrl: 'https://api.anthropic.com',
        forwardCompaction: true,
      }),
    ).toThrow(/providers\.p\.forwardCompaction: only an openai-responses provider/);
  });
});
