import type { SurfaceCodec } from '../surface-codec.ts';
import { createMessagesStreamEncoder } from './create-messages-stream-encoder.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { encodeMessagesResult } from './encode-messages-result.ts';

/** The message-style client dialect (spec §2.3, §4.2, §6); errors in shape B (spec §2.1). */
export const messagesSurface: SurfaceCodec = {
  name: 'messages',
  errorShape: 'B',
  inputUsageAtStart: true,
  decodeRequest: decodeMessagesRequest,
  encodeResult: encodeMessagesResult,
  createStreamEncoder: createMessagesStreamEncoder,
};
