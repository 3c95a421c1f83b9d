import { describe, expect, it } from 'vitest';
import { jsonStringTemplate } from './json-string-template.ts';

const texts = [
  '',
  'plain',
  'a "quote" and a \\ backslash',
  'line\nbreak\ttab',
  '✓ 🚀 é',
  '\u2028\u0000',
  '</script>',
];

describe('jsonStringTemplate', () => {
  it('writes what JSON.stringify writes, whatever the text', () => {
    const build = (text: string) => ({
      id: 'chatcmpl-1',
      created: 1767225600,
      choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
    });
    const write = jsonStringTemplate(build);
    for (const text of texts) expect(write(text)).toBe(JSON.stringify(build(text)));
  });

  it('stringifies each value when the text is not in it exactly once', () => {
    const twice = (text: string) => ({ a: text, b: text });
    const absent = (text: string) => ({ length: text.length });
    for (const build of [twice, absent]) {
      const write = jsonStringTemplate(build);
      for (const text of texts) expect(write(text)).toBe(JSON.stringify(build(text)));
    }
  });
});
