import { describe, expect, it } from 'vitest';
import type { Config } from '../config/config-schema.ts';
import { ProviderKeys } from './provider-keys.ts';

const providers = (entries: Record<string, string>): Pick<Config, 'providers'> => ({
  providers: Object.fromEntries(
    Object.entries(entries).map(([id, apiKeyEnv]) => [
      id,
      {
        kind: 'anthropic',
        baseUrl: 'https://api.example.com',
        apiKeyEnv,
        connectTimeoutMs: 1,
        firstByteTimeoutMs: 1,
        idleTimeoutMs: 1,
        maxConnections: 1,
      },
    ]),
  ),
});

describe('ProviderKeys', () => {
  it('follows a reload through the function holders kept', () => {
    const env = { KEY_A: 'a', KEY_B: 'b', KEY_C: 'c' };
    const keys = new ProviderKeys(providers({ kept: 'KEY_A', gone: 'KEY_C' }), env);
    const providerKey = keys.get;
    expect(providerKey('kept')).toBe('a');

    keys.replaceWith(providers({ kept: 'KEY_B', added: 'KEY_A' }), env);
    // A provider that names another variable reads it; a new one reads its own.
    expect(providerKey('kept')).toBe('b');
    expect(providerKey('added')).toBe('a');
    // A removed provider keeps its key for the calls planned before the reload.
    expect(providerKey('gone')).toBe('c');
    expect(providerKey('never')).toBeUndefined();

    // Only for one reload: a second one forgets it.
    keys.replaceWith(providers({ kept: 'KEY_B' }), env);
    expect(providerKey('added')).toBe('a');
    expect(providerKey('gone')).toBeUndefined();
  });
});
