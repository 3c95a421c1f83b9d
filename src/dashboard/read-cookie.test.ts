import { describe, expect, it } from 'vitest';

import { readCookie } from './read-cookie.ts';

describe('readCookie', () => {
  it('finds a cookie among others by its exact name', () => {
    const header = 'theme=dark; switchyard_session_old=x; switchyard_session=abc_-1; other=2';
    expect(readCookie(header, 'switchyard_session')).toBe('abc_-1');
    expect(readCookie(header, 'theme')).toBe('dark');
  });

  it('takes the first of a repeated name and unquotes a quoted value', () => {
    expect(readCookie('a=1; a=2', 'a')).toBe('1');
    expect(readCookie('a="quoted"', 'a')).toBe('quoted');
  });

  it('answers undefined without a header, without the cookie, or for a pair without =', () => {
    expect(readCookie(undefined, 'a')).toBeUndefined();
    expect(readCookie('b=1', 'a')).toBeUndefined();
    expect(readCookie('a', 'a')).toBeUndefined();
  });
});
