import type { RenderContext } from './fake-dialect-renderer.ts';
import type { FakeOutputBlock } from './fake-reply.ts';
import { splitIntoDeltas } from './split-into-deltas.ts';

/** An output item with its ids settled, so the added/done events and the final output agree. */
export type ResponsesItem =
  | { kind: 'message'; id: string; text: string }
  | { kind: 'reasoning'; id: string; text: string; encryptedContent: string | undefined }
  | { kind: 'function_call'; id: string; callId: string; name: string; arguments: string };

/** An event before `sequence_number` is stamped on it. */
export type ResponsesEvent = { type: string } & Record<string, unknown>;

function wantsEncryptedReasoning(body: Record<string, unknown>): boolean {
  return Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
}

export function settleResponsesItems(
  output: FakeOutputBlock[],
  context: RenderContext,
): ResponsesItem[] {
  const encrypted = wantsEncryptedReasoning(context.body);
  return output.map((block): ResponsesItem => {
    if ('text' in block) return { kind: 'message', id: context.ids.next('msg_'), text: block.text };
    if ('reasoning' in block) {
      const id = context.ids.next('rs_');
      const encryptedContent = encrypted
        ? (block.reasoning.encryptedContent ??
          Buffer.from(`fake-encrypted:${id}`).toString('base64'))
        : undefined;
      return { kind: 'reasoning', id, text: block.reasoning.text ?? '', encryptedContent };
    }
    const call = block.toolCall;
    return {
      kind: 'function_call',
      // Item id (fc_…) and call_id (call_…) are different values (docs/clients.md, Codex).
      id: call.itemId ?? context.ids.next('fc_'),
      callId: call.id ?? context.ids.next('call_'),
      name: call.name,
      arguments: call.arguments,
    };
  });
}

function outputText(text: string) {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

function reasoningItem(item: Extract<ResponsesItem, { kind: 'reasoning' }>, summary: unknown[]) {
  return {
    id: item.id,
    type: 'reasoning',
    summary,
    ...(item.encryptedContent === undefined ? {} : { encrypted_content: item.encryptedContent }),
  };
}

/** The item as it appears in `response.output` and in `response.output_item.done`. */
export function finishedItem(item: ResponsesItem, status: 'completed' | 'incomplete'): unknown {
  switch (item.kind) {
    case 'message':
      return {
        id: item.id,
        type: 'message',
        status,
        content: [outputText(item.text)],
        role: 'assistant',
      };
    case 'reasoning':
      return reasoningItem(
        item,
        item.text === '' ? [] : [{ type: 'summary_text', text: item.text }],
      );
    case 'function_call':
      return {
        id: item.id,
        type: 'function_call',
        status: 'completed',
        arguments: item.arguments,
        call_id: item.callId,
        name: item.name,
      };
  }
}

function addedItem(item: ResponsesItem): unknown {
  switch (item.kind) {
    case 'message':
      return {
        id: item.id,
        type: 'message',
        status: 'in_progress',
        content: [],
        role: 'assistant',
      };
    case 'reasoning':
      return reasoningItem(item, []);
    case 'function_call':
      return {
        id: item.id,
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: item.callId,
        name: item.name,
      };
  }
}

function contentEvents(item: ResponsesItem, output_index: number): ResponsesEvent[] {
  const item_id = item.id;
  switch (item.kind) {
    case 'message': {
      const at = { item_id, output_index, content_index: 0 };
      return [
        { type: 'response.content_part.added', ...at, part: outputText('') },
        ...splitIntoDeltas(item.text).map((delta) => ({
          type: 'response.output_text.delta',
          ...at,
          delta,
          logprobs: [],
        })),
        { type: 'response.output_text.done', ...at, text: item.text, logprobs: [] },
        { type: 'response.content_part.done', ...at, part: outputText(item.text) },
      ];
    }
    case 'reasoning': {
      if (item.text === '') return [];
      const at = { item_id, output_index, summary_index: 0 };
      return [
        {
          type: 'response.reasoning_summary_part.added',
          ...at,
          part: { type: 'summary_text', text: '' },
        },
        ...splitIntoDeltas(item.text).map((delta) => ({
          type: 'response.reasoning_summary_text.delta',
          ...at,
          delta,
        })),
        { type: 'response.reasoning_summary_text.done', ...at, text: item.text },
        {
          type: 'response.reasoning_summary_part.done',
          ...at,
          part: { type: 'summary_text', text: item.text },
        },
      ];
    }
    case 'function_call':
      return [
        ...splitIntoDeltas(item.arguments).map((delta) => ({
          type: 'response.function_call_arguments.delta',
          item_id,
          output_index,
          delta,
        })),
        {
          type: 'response.function_call_arguments.done',
          item_id,
          output_index,
          name: item.name,
          arguments: item.arguments,
        },
      ];
  }
}

/** `output_item.added`, the item's content events, then `output_item.done`. */
export function itemEvents(
  item: ResponsesItem,
  outputIndex: number,
  status: 'completed' | 'incomplete',
): ResponsesEvent[] {
  return [
    { type: 'response.output_item.added', output_index: outputIndex, item: addedItem(item) },
    ...contentEvents(item, outputIndex),
    {
      type: 'response.output_item.done',
      output_index: outputIndex,
      item: finishedItem(item, status),
    },
  ];
}
