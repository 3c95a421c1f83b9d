import type { ProviderCodec } from '../provider-codec.ts';
import { convertToBedrockConverseRequest } from './convert-to-bedrock-converse-request.ts';
import { decodeBedrockConverseResult } from './decode-bedrock-converse-result.ts';
import { createBedrockConverseStreamDecoder } from './decode-bedrock-converse-stream.ts';

/**
 * Amazon Bedrock's Converse API as an upstream dialect (POST /model/{modelId}/converse; the
 * transport names the model in the path and picks the streaming operation).
 */
export const bedrockConverseProvider: ProviderCodec = {
  dialect: 'bedrock-converse',
  path: '/model/{modelId}/converse',
  encodeRequest: convertToBedrockConverseRequest,
  decodeResult: decodeBedrockConverseResult,
  createStreamDecoder: createBedrockConverseStreamDecoder,
};
