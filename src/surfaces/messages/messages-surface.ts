import type { SurfaceCodec } from '../surface-codec.ts';
import { createMessagesStreamEncoder } from './create-messages-stream-encoder.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { encodeMessagesResult } from './encode-messages-result.ts';

/** The message-style client dialect (docs/clients.md); errors in shape B (docs/api.md). */
export const messagesSurface: SurfaceCodec = {
  name: 'messages',
  errorShape: 'B',
  inputUsageAtStart: true,
  decodeRequest: decodeMessagesRequest,
  encodeResult: encodeMessagesResult,
  createStreamEncoder: createMessagesStreamEncoder,
};
