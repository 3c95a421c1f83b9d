import type { ProviderCodec } from '../provider-codec.ts';
import { convertToAnthropicRequest } from './convert-to-anthropic-request.ts';
import { decodeAnthropicResult } from './decode-anthropic-result.ts';
import { createAnthropicStreamDecoder } from './decode-anthropic-stream.ts';

/** The Anthropic Messages API as an upstream (POST /v1/messages). */
export const anthropicProvider: ProviderCodec = {
  dialect: 'anthropic',
  path: '/v1/messages',
  encodeRequest: convertToAnthropicRequest,
  decodeResult: decodeAnthropicResult,
  createStreamDecoder: createAnthropicStreamDecoder,
};
