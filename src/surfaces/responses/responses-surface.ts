import type { SurfaceCodec } from '../surface-codec.ts';
import { createResponsesStreamEncoder } from './create-responses-stream-encoder.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesResult } from './encode-responses-result.ts';

/** The responses-style surface: OpenAI Responses API clients such as Codex. */
export const responsesSurface: SurfaceCodec = {
  name: 'responses',
  errorShape: 'A',
  decodeRequest: decodeResponsesRequest,
  encodeResult: encodeResponsesResult,
  createStreamEncoder: createResponsesStreamEncoder,
};
