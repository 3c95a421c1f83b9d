import { describe, expect, it } from 'vitest';
import { chooseBrowserTestMode } from './require-chromium.ts';

describe('chooseBrowserTestMode', () => {
  const missing = '/nonexistent/chromium';

  it('runs when Chromium is there', () => {
    expect(chooseBrowserTestMode({ path: process.execPath, env: { CI: 'true' } })).toBe('run');
  });

  it('skips without Chromium outside CI', () => {
    expect(chooseBrowserTestMode({ path: missing, env: {} })).toBe('skip');
    expect(chooseBrowserTestMode({ path: missing, env: { CI: 'false' } })).toBe('skip');
  });

  it('fails without Chromium under CI', () => {
    expect(chooseBrowserTestMode({ path: missing, env: { CI: 'true' } })).toBe('fail');
  });
});
