import { describe, expect, it } from 'vitest';
import { deriveInstallerBaseUrl, normalizeInstallerBaseUrl } from './resolve-installer-base-url.ts';

describe('normalizeInstallerBaseUrl', () => {
  it('keeps an http(s) origin and path without the trailing slash', () => {
    expect(normalizeInstallerBaseUrl('https://gw.example.com/')).toBe('https://gw.example.com');
    expect(normalizeInstallerBaseUrl('http://10.0.0.2:8080/switchyard//')).toBe(
      'http://10.0.0.2:8080/switchyard',
    );
    expect(normalizeInstallerBaseUrl('https://[::1]:8443')).toBe('https://[::1]:8443');
  });

  it('percent-encodes what the URL standard encodes, which is inert when quoted', () => {
    expect(normalizeInstallerBaseUrl('https://gw.example.com/a"b c')).toBe(
      'https://gw.example.com/a%22b%20c',
    );
  });

  it('refuses what cannot sit inside a quoted string or is not a plain base URL', () => {
    for (const value of [
      "https://gw.example.com/a'b",
      'https://gw.example.com/$(id)',
      'https://user:pass@gw.example.com',
      'https://gw.example.com/?token=x',
      'https://gw.example.com/#x',
      'ftp://gw.example.com',
      'not a url',
    ]) {
      expect(normalizeInstallerBaseUrl(value), value).toBeUndefined();
    }
  });
});

describe('deriveInstallerBaseUrl', () => {
  it('builds the URL from the protocol and a well-formed Host', () => {
    expect(deriveInstallerBaseUrl('https', 'gw.example.com')).toBe('https://gw.example.com');
    expect(deriveInstallerBaseUrl('http', '127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(deriveInstallerBaseUrl('http', '[::1]:8080')).toBe('http://[::1]:8080');
  });

  it('refuses a missing or crafted Host', () => {
    for (const host of [
      undefined,
      '',
      "gw'.example",
      'gw.example/path',
      'gw.example:80:81',
      'a b',
    ]) {
      expect(deriveInstallerBaseUrl('http', host), String(host)).toBeUndefined();
    }
  });
});
