import { describe, expect, it } from 'vitest';

import { createModelRenamer } from './rename-relayed-model.ts';

describe('createModelRenamer', () => {
  const rename = createModelRenamer('team/fast');

  it('puts the catalog id in place of the upstream model, keeping the rest byte for byte', () => {
    const text = '{"id":"c1","model" : "gpt-4o-2024-08-06","choices":[{"index":0}]}';
    expect(rename(text)).toBe('{"id":"c1","model" : "team/fast","choices":[{"index":0}]}');
  });

  it('renames only the first member and never text that merely mentions one', () => {
    const text =
      '{"content":"say \\"model\\":\\"x\\"","model":"up","tools":[{"model":"gpt-image-1"}]}';
    expect(rename(text)).toBe(
      '{"content":"say \\"model\\":\\"x\\"","model":"team/fast","tools":[{"model":"gpt-image-1"}]}',
    );
  });

  it('handles escapes inside the upstream value and returns the same string when nothing changes', () => {
    expect(rename('{"model":"a\\"b"}')).toBe('{"model":"team/fast"}');
    const already = '{"model":"team/fast","x":1}';
    expect(rename(already)).toBe(already);
    expect(rename('{"type":"ping"}')).toBe('{"type":"ping"}');
  });
});
