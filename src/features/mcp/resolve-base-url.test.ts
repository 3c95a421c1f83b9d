import { describe, expect, it } from 'vitest';
import { resolveBaseUrl } from './resolve-base-url.ts';

describe('resolveBaseUrl', () => {
  it('prefers the configured URL, without a trailing slash', () => {
    expect(resolveBaseUrl('https://gw.example/api/', 'http', 'evil.example')).toBe(
      'https://gw.example/api',
    );
  });

  it('derives an origin from the protocol and Host', () => {
    expect(resolveBaseUrl(undefined, 'http', '127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(resolveBaseUrl(undefined, 'https', 'gw.example')).toBe('https://gw.example');
  });

  it('refuses a Host that is not a plain host and port', () => {
    expect(resolveBaseUrl(undefined, 'http', undefined)).toBeUndefined();
    expect(resolveBaseUrl(undefined, 'http', '')).toBeUndefined();
    expect(resolveBaseUrl(undefined, 'http', 'gw.example/path')).toBeUndefined();
    expect(resolveBaseUrl(undefined, 'http', 'user@gw.example')).toBeUndefined();
    expect(resolveBaseUrl(undefined, 'http', 'gw.example?x=1')).toBeUndefined();
    expect(resolveBaseUrl(undefined, 'http', 'gw example')).toBeUndefined();
  });
});
