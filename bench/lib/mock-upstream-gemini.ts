import { pieces, WORDS } from './mock-upstream-bodies.ts';

/**
 * The bench mock's Gemini API answers (`generateContent` and `streamGenerateContent?alt=sse`): the
 * same fixed text as the chat answers, in Gemini's shape, usage on every chunk as Gemini sends it.
 */
const envelope = { modelVersion: 'gemini-2.5-flash', responseId: 'bench-gemini-response-0001' };

function chunk(text: string, final: boolean): string {
  return JSON.stringify({
    candidates: [
      {
        content: { role: 'model', parts: [{ text }] },
        ...(final ? { finishReason: 'STOP' } : {}),
        index: 0,
      },
    ],
    usageMetadata: final
      ? { promptTokenCount: 42, candidatesTokenCount: 38, totalTokenCount: 80 }
      : { promptTokenCount: 42, totalTokenCount: 42 },
    ...envelope,
  });
}

export const GEMINI_JSON = chunk(WORDS, true);

/** 18 events: 17 pieces of text, the last with the finish reason and full usage. */
export const GEMINI_SSE: string[] = [...pieces(17), ''].map(
  (text, index, all) => `data: ${chunk(text, index === all.length - 1)}\n\n`,
);

/** The Gemini API's generation routes: `/v1beta/models/{model}:{method}`. */
export const GEMINI_ROUTE = /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)/;
