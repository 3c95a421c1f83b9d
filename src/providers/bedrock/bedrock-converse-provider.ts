import type { ProviderCodec } from '../provider-codec.ts';
import { convertToBedrockConverseRequest } from './convert-to-bedrock-converse-request.ts';
import { decodeBedrockConverseResult } from './decode-bedrock-converse-result.ts';
import { createBedrockConverseStreamDecoder } from './decode-bedrock-converse-stream.ts';

/** Amazon Bedrock's Converse API as an upstream dialect (the path is the transport's). */
export const bedrockConverseProvider = {
  encodeRequest: convertToBedrockConverseRequest,
  decodeResult: decodeBedrockConverseResult,
  createStreamDecoder: createBedrockConverseStreamDecoder,
} satisfies Pick<ProviderCodec, 'encodeRequest' | 'decodeResult' | 'createStreamDecoder'>;
