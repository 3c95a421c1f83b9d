import type { ProviderCodec } from '../provider-codec.ts';
import { convertToOpenAIResponsesRequest } from './convert-to-openai-responses-request.ts';
import { decodeOpenAIResponsesResult } from './decode-openai-responses-result.ts';
import { createOpenAIResponsesStreamDecoder } from './decode-openai-responses-stream.ts';

/** The OpenAI Responses API as an upstream (`POST /v1/responses`). */
export const openAIResponsesProvider: ProviderCodec = {
  dialect: 'openai-responses',
  path: '/v1/responses',
  encodeRequest: convertToOpenAIResponsesRequest,
  decodeResult: decodeOpenAIResponsesResult,
  createStreamDecoder: createOpenAIResponsesStreamDecoder,
};
