import type { FakeDialectRenderer, RenderContext } from './fake-dialect-renderer.ts';
import { renderOpenAiErrorBody } from './render-openai-error.ts';
import { responsesUsage } from './render-responses-reply.ts';
import type { ResolvedReply } from './resolve-fake-reply.ts';

/** The opaque `encrypted_content` the fake gives a compaction item, derived from its id. */
export function fakeCompactionContent(itemId: string): string {
  return Buffer.from(`fake-compaction:${itemId}`).toString('base64');
}

/** The user messages of a Responses `input`, as the compacted output repeats them. */
function userMessages(input: unknown): unknown[] {
  if (typeof input === 'string') {
    return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  }
  if (!Array.isArray(input)) return [];
  return input
    .filter((item: { type?: unknown; role?: unknown }) => {
      return (item.type === undefined || item.type === 'message') && item.role === 'user';
    })
    .map((item: Record<string, unknown>) => ({ ...item, type: 'message' }));
}

/**
 * `POST /v1/responses/compact` (API reference, "Compact a response"): a `response.compaction`
 * object whose output is every user message of the input, then one compaction item. The
 * scripted reply gives the id and usage; its output blocks are not used.
 */
function renderJson(reply: ResolvedReply, context: RenderContext): unknown {
  const itemId = context.ids.next('cmp_');
  return {
    id: reply.id ?? context.ids.next('resp_'),
    object: 'response.compaction',
    created_at: context.createdAt,
    output: [
      ...userMessages(context.body.input),
      { id: itemId, type: 'compaction', encrypted_content: fakeCompactionContent(itemId) },
    ],
    usage: responsesUsage(reply.usage),
  };
}

export const responsesCompactionRenderer: FakeDialectRenderer = {
  dialect: 'responses',
  requestIdHeader: 'x-request-id',
  renderJson,
  // The endpoint has no streaming form (no renderStream): a `stream` field gets the JSON answer.
  renderErrorBody: renderOpenAiErrorBody,
};
