import { describe, expect, it } from 'vitest';

import { parseConfig } from './load-config.ts';

const providers = {
  audio: { kind: 'openai-transcription', baseUrl: 'https://api.openai.com' },
  chat: { kind: 'openai-chat', baseUrl: 'https://api.openai.com' },
};

const textModel = (id: string, provider: string) => ({
  id,
  deployments: [{ provider, upstreamModel: 'gpt-x' }],
  contextWindow: 1000,
  maxOutputTokens: 100,
  pricing: { input: 1, output: 2 },
});

const transcriptionModel = (overrides: Record<string, unknown> = {}) => ({
  id: 'whisper',
  deployments: [{ provider: 'audio', upstreamModel: 'whisper-1' }],
  pricing: { perSecond: 0.0001 },
  ...overrides,
});

describe('the transcription configuration (docs/transcription.md)', () => {
  it('takes transcription models on openai-transcription providers beside text models', () => {
    const config = parseConfig({
      providers,
      models: [textModel('gpt', 'chat')],
      transcription: { models: [transcriptionModel()] },
    });
    expect(config.transcription?.models[0]?.pricing).toEqual({ perSecond: 0.0001 });
    expect(config.providers.audio?.kind).toBe('openai-transcription');
    expect(parseConfig({}).transcription).toBeUndefined();
  });

  it('keeps text models off transcription providers and transcription models off text ones', () => {
    expect(() => parseConfig({ providers, models: [textModel('gpt', 'audio')] })).toThrow(
      /models\[0\]\.deployments\[0\]\.provider: "audio" is an openai-transcription provider/,
    );
    expect(() =>
      parseConfig({
        providers,
        transcription: {
          models: [transcriptionModel({ deployments: [{ provider: 'chat', upstreamModel: 'x' }] })],
        },
      }),
    ).toThrow(
      /transcription\.models\[0\]\.deployments\[0\]\.provider: "chat" is not an openai-transcription provider/,
    );
    expect(() =>
      parseConfig({
        providers,
        transcription: {
          models: [transcriptionModel({ deployments: [{ provider: 'nope', upstreamModel: 'x' }] })],
        },
      }),
    ).toThrow(/no provider named "nope"/);
  });

  it('refuses a duplicate id (also against text models), a fine price and half a token price', () => {
    expect(() =>
      parseConfig({
        providers,
        models: [textModel('whisper', 'chat')],
        transcription: { models: [transcriptionModel()] },
      }),
    ).toThrow(/transcription\.models\[0\]\.id: duplicate model id "whisper"/);
    expect(() =>
      parseConfig({
        providers,
        transcription: { models: [transcriptionModel({ pricing: { perSecond: 0.0000001 } })] },
      }),
    ).toThrow(/pricing\.perSecond: at most 6 decimal places/);
    expect(() =>
      parseConfig({
        providers,
        transcription: { models: [transcriptionModel({ pricing: { perSecond: 0, input: 1 } })] },
      }),
    ).toThrow(/set both input and output token prices, or neither/);
  });
});
