import type { ErrorShape } from '../canonical/generation-error.ts';

/**
 * Message-style routes answer errors in shape B, every other route in shape A (docs/api.md).
 * Unknown paths under the message-style family count as message-style.
 */
export function errorShapeForUrl(url: string): ErrorShape {
  return url.startsWith('/v1/messages') ? 'B' : 'A';
}
