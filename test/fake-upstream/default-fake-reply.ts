import type { FakeDialect, FakeSuccessReply } from './fake-reply.ts';
import { lastGeminiUserText } from './wire-gemini.ts';

/** Text parts are `text` in messages and chat, `input_text` in Responses input. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((part: { type?: unknown; text?: unknown }) =>
    (part.type === 'text' || part.type === 'input_text') && typeof part.text === 'string'
      ? [part.text]
      : [],
  );
  return texts.length > 0 ? texts.join('') : undefined;
}

function lastUserText(dialect: FakeDialect, body: Record<string, unknown>): string | undefined {
  if (dialect === 'gemini') return lastGeminiUserText(body);
  if (dialect === 'responses' && typeof body.input === 'string') return body.input;
  const entries = dialect === 'responses' ? body.input : body.messages;
  if (!Array.isArray(entries)) return undefined;
  for (const entry of [...entries].reverse() as { role?: unknown; content?: unknown }[]) {
    if (entry.role !== 'user') continue;
    const text = textOf(entry.content);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The reply when nothing is queued: an echo, so simple tests need no script. */
export function defaultFakeReply(
  dialect: FakeDialect,
  body: Record<string, unknown>,
): FakeSuccessReply {
  const text = lastUserText(dialect, body);
  return { output: [{ text: text === undefined ? 'ok' : `echo: ${text}` }] };
}
