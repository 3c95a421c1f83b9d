import type { AssistantContentPart, GenerationCall } from '../../canonical/generation-call.ts';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { emptyUsage } from '../../canonical/usage.ts';
import { decodeOpenAIResponsesUsage } from './decode-openai-responses-usage.ts';
import { mapOpenAIResponsesFinishReason } from './map-openai-responses-finish-reason.ts';
import { createOpenAIToolNames } from '../shared/openai-tool-names.ts';
import { isJsonRecord, readRecords, readString, readTexts } from './read-openai-responses-json.ts';

/**
 * A non-streamed response object in canonical form. Reasoning keeps its item id, summaries and
 * encrypted content; function calls keep `call_id` as the tool call id and the item `id` apart;
 * arguments stay the exact text. Output items of built-in tools are never requested, so none are
 * expected; they would be ignored.
 */
export function decodeOpenAIResponsesResult(body: unknown, call: GenerationCall): GenerationResult {
  const response = isJsonRecord(body) ? body : {};
  const names = createOpenAIToolNames(call);
  const content: AssistantContentPart[] = [];
  let hasFunctionCall = false;
  for (const item of readRecords(response.output)) {
    const itemId = readString(item.id);
    switch (item.type) {
      case 'reasoning': {
        const summary = readTexts(item.summary, 'summary_text');
        const raw = readTexts(item.content, 'reasoning_text').join('');
        const encryptedContent = readString(item.encrypted_content);
        content.push({
          type: 'reasoning',
          text: summary.length > 0 ? summary.join('\n\n') : raw,
          provider: 'openai',
          summary,
          ...(itemId !== undefined ? { itemId } : {}),
          ...(encryptedContent !== undefined ? { encryptedContent } : {}),
        });
        break;
      }
      case 'message':
        for (const part of readRecords(item.content)) {
          // A refusal is the model's answer; it reaches the client as text.
          const text =
            part.type === 'output_text'
              ? part.text
              : part.type === 'refusal'
                ? part.refusal
                : undefined;
          if (typeof text === 'string') content.push({ type: 'text', text });
        }
        break;
      case 'function_call':
        hasFunctionCall = true;
        content.push({
          type: 'tool-call',
          toolCallId: readString(item.call_id) ?? '',
          ...(itemId !== undefined ? { itemId } : {}),
          toolName: names.fromUpstream(readString(item.name) ?? ''),
          input: readString(item.arguments) ?? '',
        });
        break;
      default:
        break;
    }
  }
  const incomplete = isJsonRecord(response.incomplete_details) ? response.incomplete_details : {};
  const id = readString(response.id);
  const model = readString(response.model);
  // Optional members last: a literal that starts with a spread is slow on Node 20 (copy-with.ts).
  return {
    content,
    finishReason: mapOpenAIResponsesFinishReason({
      status: readString(response.status),
      incompleteReason: readString(incomplete.reason),
      hasFunctionCall,
    }),
    usage: decodeOpenAIResponsesUsage(response.usage) ?? emptyUsage(),
    ...(id !== undefined ? { id } : {}),
    ...(model !== undefined ? { model } : {}),
  };
}
