import { describe, expect, it } from 'vitest';

import { parseConfig } from './load-config.ts';

function problems(images: Record<string, unknown>): string {
  try {
    parseConfig({ images });
    return '';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const provider = { id: 'p', kind: 'bfl', baseUrl: 'https://api.example' };
const model = {
  id: 'm',
  deployments: [{ provider: 'p', upstreamModel: 'flux' }],
  prices: [{ resolution: '1K', perImage: 0.04 }],
};

describe('images configuration checks (docs/images.md)', () => {
  it('accepts a provider and a priced model', () => {
    expect(problems({ providers: [provider], models: [model] })).toBe('');
  });

  it('refuses unknown providers, mixed kinds and missing or doubled prices', () => {
    const other = { id: 'o', kind: 'openai-images', baseUrl: 'https://api.example' };
    expect(
      problems({
        providers: [provider],
        models: [{ ...model, deployments: [{ provider: 'nope', upstreamModel: 'x' }] }],
      }),
    ).toContain('no images provider "nope"');
    expect(
      problems({
        providers: [provider, other],
        models: [
          {
            ...model,
            deployments: [
              { provider: 'p', upstreamModel: 'x' },
              { provider: 'o', upstreamModel: 'y' },
            ],
          },
        ],
      }),
    ).toContain('providers of different kinds');
    expect(
      problems({ providers: [provider], models: [{ ...model, resolutions: ['1K', '2K'] }] }),
    ).toContain('needs exactly one price for 2K');
    expect(
      problems({
        providers: [provider],
        models: [{ ...model, qualities: ['low'], defaultQuality: 'low' }],
      }),
    ).toContain('needs exactly one price for 1K / low');
    expect(
      problems({
        providers: [provider, { ...provider, fetchOrigins: ['https://x/path'] }],
        models: [model],
      }),
    ).toMatch(/duplicate id "p"[\s\S]*fetchOrigins\[0\]/);
  });
});
