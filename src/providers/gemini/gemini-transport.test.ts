import { describe, expect, it } from 'vitest';
import type { UpstreamKey } from '../../catalog/upstream-key.ts';
import { geminiTransport, readGeminiTokenCount } from './gemini-transport.ts';

describe('geminiTransport', () => {
  const transport = geminiTransport();

  it('speaks gemini to every client, the model in the path, streams as SSE', () => {
    expect(transport.dialect('gemini-2.5-pro', 'anthropic')).toBe('gemini');
    expect(transport.generationPath('gemini-2.5-pro', 'gemini', false)).toBe(
      '/v1beta/models/gemini-2.5-pro:generateContent',
    );
    expect(transport.generationPath('tuned/model x', 'gemini', true)).toBe(
      '/v1beta/models/tuned%2Fmodel%20x:streamGenerateContent?alt=sse',
    );
  });

  it('puts the key in x-goog-api-key and nowhere else', () => {
    const request = { path: '/p', headers: { 'content-type': 'application/json' }, body: '{}' };
    transport.authorize(request, { secret: 'AIza-secret' } as UpstreamKey);
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      'x-goog-api-key': 'AIza-secret',
    });
    expect(request.path).toBe('/p');
  });

  it('counts the whole generateContent request on :countTokens', () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [] };
    const count = transport.countTokens?.('gemini-2.5-flash', 'gemini', body);
    expect(count?.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(count?.body).toEqual({
      generateContentRequest: { model: 'models/gemini-2.5-flash', ...body },
    });
    expect(readGeminiTokenCount({ totalTokens: 31 })).toBe(31);
    expect(readGeminiTokenCount({ totalTokens: '31' })).toBeUndefined();
    expect(readGeminiTokenCount({})).toBeUndefined();
  });
});
