import type { AssistantContentPart } from '../../canonical/generation-call.ts';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type {
  ResponseObject,
  ResponsesOutputItem,
} from '../../wire/responses/responses-object-schema.ts';
import type { SurfaceEncodeContext } from '../surface-codec.ts';
import { encodeResponsesUsage } from './encode-responses-usage.ts';
import {
  mapResponsesTerminalStatus,
  outputFunctionCall,
  outputMessage,
  outputReasoning,
} from './encode-responses-output-item.ts';
import { mintResponsesItemId } from './responses-item-id.ts';

/** A whole canonical result as a response object. */
export function encodeResponsesResult(
  result: GenerationResult,
  context: SurfaceEncodeContext,
): ResponseObject {
  const { status, incompleteDetails } = mapResponsesTerminalStatus(result.finishReason);
  return {
    id: context.responseId,
    object: 'response',
    created_at: context.createdAt,
    status,
    error:
      status === 'failed'
        ? { code: 'server_error', message: 'The model stopped with an error.' }
        : null,
    incomplete_details: incompleteDetails,
    model: context.model,
    output: encodeResponsesOutput(result.content, context.responseId),
    usage: encodeResponsesUsage(result.usage),
  };
}

/** Consecutive text parts share one message item, as one assistant message of the dialect. */
export function encodeResponsesOutput(
  content: AssistantContentPart[],
  responseId: string,
): ResponsesOutputItem[] {
  const output: ResponsesOutputItem[] = [];
  let texts: string[] | undefined;
  const flushTexts = () => {
    if (texts === undefined) return;
    output.push(
      outputMessage(mintResponsesItemId('msg', responseId, output.length), texts, 'completed'),
    );
    texts = undefined;
  };
  for (const part of content) {
    switch (part.type) {
      case 'text':
        (texts ??= []).push(part.text);
        break;
      case 'reasoning':
        flushTexts();
        output.push(
          outputReasoning(
            part.provider === 'openai' && part.itemId !== undefined
              ? part.itemId
              : mintResponsesItemId('rs', responseId, output.length),
            part,
          ),
        );
        break;
      case 'tool-call':
        flushTexts();
        output.push(
          outputFunctionCall(
            part.itemId ?? mintResponsesItemId('fc', responseId, output.length),
            part.toolCallId,
            part.toolName,
            part.input,
            'completed',
          ),
        );
        break;
      default:
        assertNever(part);
    }
  }
  flushTexts();
  return output;
}
