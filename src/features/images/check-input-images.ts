import { ApiError } from '../../canonical/generation-error.ts';
import { acceptedImageMediaTypes, detectImageType } from './detect-image-type.ts';
import type { CheckedInputImage, InputImage } from './image-types.ts';

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;

function refuse(index: number, field: string, why: string): ApiError {
  const param = `input_images[${index}].${field}`;
  return new ApiError('invalid_request', `${param}: ${why}`, { details: { param } });
}

/**
 * Decodes and checks every reference image: the name is printable, the data is base64 (a
 * `data:` URL is refused rather than guessed at), it decodes to at most `maxBytes`, and its magic
 * bytes are the media type it claims.
 */
export function checkInputImages(images: InputImage[], maxBytes: number): CheckedInputImage[] {
  return images.map((image, index) => {
    // The name becomes the stored file's name, later sent in a Content-Disposition header.
    if ([...image.name].some((character) => character < ' ' || character === '\u007f')) {
      throw refuse(index, 'name', 'must not contain control characters (CR, LF, NUL, …)');
    }
    if (!acceptedImageMediaTypes.includes(image.media_type)) {
      throw refuse(index, 'media_type', `must be one of ${acceptedImageMediaTypes.join(', ')}`);
    }
    const data = image.data.replace(/\s+/g, '');
    if (data.length === 0 || data.length % 4 !== 0 || !base64Pattern.test(data)) {
      throw refuse(index, 'data', 'is not standard base64 (no data: prefix)');
    }
    if ((data.length / 4) * 3 > maxBytes + 2) {
      throw refuse(index, 'data', `decodes to more than ${maxBytes} bytes`);
    }
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length > maxBytes)
      throw refuse(index, 'data', `decodes to more than ${maxBytes} bytes`);
    const detected = detectImageType(bytes);
    if (detected !== image.media_type) {
      throw refuse(
        index,
        'data',
        detected === undefined
          ? `is not a ${image.media_type} image`
          : `is a ${detected} image, not ${image.media_type}`,
      );
    }
    return { name: image.name, mediaType: image.media_type, bytes };
  });
}
