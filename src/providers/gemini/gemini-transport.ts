import type { UpstreamKey } from '../../catalog/upstream-key.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import type { ProviderTransport, TransportRequest } from '../provider-transport.ts';

/** The count in a `countTokens` answer (`{"totalTokens": n}`). */
export function readGeminiTokenCount(answer: unknown): number | undefined {
  const total = isJsonObject(answer) ? answer.totalTokens : undefined;
  return typeof total === 'number' && Number.isInteger(total) && total >= 0 ? total : undefined;
}

/** The Gemini API's path of a model method (`generateContent`, `countTokens`...). */
export function geminiModelPath(upstreamModel: string, method: string): string {
  return `/v1beta/models/${encodeURIComponent(upstreamModel)}:${method}`;
}

/**
 * The Gemini API (docs/configuration.md): every model speaks the `gemini` dialect, the model in
 * the path, a stream as server-sent events (`:streamGenerateContent?alt=sse`), the key in
 * `x-goog-api-key` (never in the URL, where it would reach access logs).
 */
export function geminiTransport(): ProviderTransport {
  return {
    dialect: () => 'gemini',
    generationPath: (upstreamModel, _dialect, stream) =>
      stream
        ? `${geminiModelPath(upstreamModel, 'streamGenerateContent')}?alt=sse`
        : geminiModelPath(upstreamModel, 'generateContent'),
    // The whole generateContent request is counted: system instruction and tools included.
    countTokens: (upstreamModel, _dialect, body) => ({
      path: geminiModelPath(upstreamModel, 'countTokens'),
      body: { generateContentRequest: { model: `models/${upstreamModel}`, ...body } },
      read: readGeminiTokenCount,
    }),
    authorize(request: TransportRequest, key: UpstreamKey): void {
      if (key.secret !== undefined) request.headers['x-goog-api-key'] = key.secret;
    },
  };
}
