import type { ProviderCodec } from '../provider-codec.ts';
import { decodeGeminiResult } from './decode-gemini-result.ts';
import { createGeminiStreamDecoder } from './decode-gemini-stream.ts';
import { encodeGeminiRequest } from './encode-gemini-request.ts';

/**
 * Gemini's `generateContent` dialect, spoken by the Gemini API and by Gemini models on Vertex AI.
 * The path is the Gemini API's; each kind's transport builds its own (gemini-transport.ts).
 */
export const geminiProvider: ProviderCodec = {
  dialect: 'gemini',
  path: '/v1beta/models/{model}:generateContent',
  encodeRequest: encodeGeminiRequest,
  decodeResult: decodeGeminiResult,
  createStreamDecoder: createGeminiStreamDecoder,
};
