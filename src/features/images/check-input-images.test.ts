import { describe, expect, it } from 'vitest';

import { ApiError } from '../../canonical/generation-error.ts';
import { checkInputImages } from './check-input-images.ts';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return String((error.details as { param: string }).param);
  }
  return 'accepted';
}

describe('checkInputImages (docs/images.md)', () => {
  it('decodes images whose magic bytes are the claimed type', () => {
    const [checked] = checkInputImages(
      [{ name: 'a.png', media_type: 'image/png', data: png.toString('base64') }],
      100,
    );
    expect(checked?.bytes.equals(png)).toBe(true);
  });

  it('names the image and field it refuses', () => {
    const image = (media_type: string, data: string) => [
      { name: 'ok', media_type: 'image/png', data: png.toString('base64') },
      { name: 'bad', media_type, data },
    ];
    expect(refusal(() => checkInputImages(image('image/gif', 'R0lG'), 100))).toBe(
      'input_images[1].media_type',
    );
    expect(refusal(() => checkInputImages(image('image/png', jpeg.toString('base64')), 100))).toBe(
      'input_images[1].data',
    );
    expect(
      refusal(() => checkInputImages(image('image/png', 'data:image/png;base64,AAAA'), 100)),
    ).toBe('input_images[1].data');
    expect(refusal(() => checkInputImages(image('image/png', png.toString('base64')), 8))).toBe(
      'input_images[0].data',
    );
  });
});
