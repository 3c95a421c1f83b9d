import type { ProviderCodec } from '../provider-codec.ts';
import { decodeOpenAIChatResult } from './decode-openai-chat-result.ts';
import { createOpenAIChatStreamDecoder } from './decode-openai-chat-stream.ts';
import { encodeOpenAIChatRequest } from './encode-openai-chat-request.ts';

/** OpenAI chat completions and the many servers that speak it (docs/architecture.md). */
export const openAIChatProvider: ProviderCodec = {
  dialect: 'openai-chat',
  path: '/v1/chat/completions',
  encodeRequest: encodeOpenAIChatRequest,
  decodeResult: decodeOpenAIChatResult,
  createStreamDecoder: createOpenAIChatStreamDecoder,
};
