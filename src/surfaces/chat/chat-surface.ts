import type { SurfaceCodec } from '../surface-codec.ts';
import { decodeChatRequest } from './decode-chat-request.ts';
import { encodeChatResult } from './encode-chat-result.ts';
import { createChatStreamEncoder } from './encode-chat-stream.ts';
import { readChatStreamEncoderOptions } from './chat-stream-encoder-options.ts';

/**
 * The chat-completions client dialect. The stream renders the usage chunk only
 * when the request asked with `stream_options.include_usage`, as OpenAI does.
 */
export const chatSurface: SurfaceCodec = {
  name: 'chat',
  errorShape: 'A',
  decodeRequest: decodeChatRequest,
  encodeResult: encodeChatResult,
  createStreamEncoder: (context, request) =>
    createChatStreamEncoder(
      context,
      request === undefined ? {} : readChatStreamEncoderOptions(request),
    ),
};
