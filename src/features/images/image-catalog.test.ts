import { describe, expect, it } from 'vitest';

import { parseConfig } from '../../config/load-config.ts';
import { bflAdapter } from './bfl-adapter.ts';
import { ImageCatalog, imageAdapters } from './image-catalog.ts';

function imagesWithReferenceImages(maxInputImages: number) {
  const config = parseConfig({
    images: {
      providers: [{ id: 'bfl', kind: 'bfl', baseUrl: 'https://api.bfl.ai' }],
      models: [
        {
          id: 'flux',
          deployments: [{ provider: 'bfl', upstreamModel: 'flux-2-pro' }],
          maxInputImages,
          prices: [{ resolution: '1K', perImage: 0.03 }],
        },
      ],
    },
  });
  return config.images as NonNullable<typeof config.images>;
}

describe('ImageCatalog', () => {
  it('lists and accepts as many reference images as the model offers, up to 8', () => {
    const catalog = new ImageCatalog(imagesWithReferenceImages(8));
    expect(catalog.list()[0]?.max_input_images).toBe(8);
    const image = { name: 'a.png', media_type: 'image/png', data: '' };
    const resolved = catalog.resolve({
      model: 'flux',
      prompt: 'eight references',
      input_images: Array.from({ length: 8 }, () => image),
    });
    expect(resolved.parameters.prompt).toBe('eight references');
  });

  it('does not start with a model offering more reference images than its kind carries', () => {
    const narrow = { ...imageAdapters, bfl: { ...bflAdapter, maxInputImages: 4 } };
    expect(() => new ImageCatalog(imagesWithReferenceImages(5), narrow)).toThrow(
      /images\.models "flux"\.maxInputImages: 5 is more than the bfl kind takes \(4\)/,
    );
    expect(() => new ImageCatalog(imagesWithReferenceImages(4), narrow)).not.toThrow();
  });
});
