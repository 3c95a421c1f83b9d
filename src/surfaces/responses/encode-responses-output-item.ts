import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { ReasoningFamily } from '../../canonical/generation-call.ts';
import type {
  ResponsesOutputFunctionCall,
  ResponsesOutputMessage,
  ResponsesOutputReasoning,
  ResponsesOutputText,
} from '../../wire/responses/responses-object-schema.ts';
import { splitQualifiedName } from './responses-namespace-name.ts';
import { encodeAnthropicReasoningToken } from './responses-reasoning-token.ts';
import { encodeGoogleReasoningToken } from '../google-reasoning-token.ts';

/** Output items built the same way for a whole result and for the stream's `done` events. */

export function outputText(text: string): ResponsesOutputText {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

export function outputMessage(
  id: string,
  texts: string[],
  status: 'in_progress' | 'completed',
): ResponsesOutputMessage {
  return { id, type: 'message', status, role: 'assistant', content: texts.map(outputText) };
}

export interface ReasoningToRender {
  provider?: ReasoningFamily | undefined;
  text: string;
  signature?: string;
  redactedData?: string;
  encryptedContent?: string;
  summary?: string[];
}

/**
 * OpenAI reasoning keeps its summaries and encrypted content as they came. Anthropic thinking
 * travels in `encrypted_content` as a gateway token and shows its text as the one summary.
 * Unsigned reasoning (chat upstreams) shows as a summary without encrypted content.
 */
export function outputReasoning(
  id: string,
  reasoning: ReasoningToRender,
): ResponsesOutputReasoning {
  const asSummary = (texts: string[]) =>
    texts.map((text) => ({ type: 'summary_text' as const, text }));
  const shown = reasoning.text === '' ? [] : [reasoning.text];
  if (reasoning.provider === 'openai') {
    return {
      id,
      type: 'reasoning',
      summary: asSummary(reasoning.summary ?? shown),
      ...(reasoning.encryptedContent !== undefined
        ? { encrypted_content: reasoning.encryptedContent }
        : {}),
    };
  }
  if (reasoning.provider === 'anthropic' && reasoning.redactedData !== undefined) {
    return {
      id,
      type: 'reasoning',
      summary: [],
      encrypted_content: encodeAnthropicReasoningToken({ redactedData: reasoning.redactedData }),
    };
  }
  if (reasoning.provider === 'google' && reasoning.signature !== undefined) {
    return {
      id,
      type: 'reasoning',
      summary: asSummary(shown),
      encrypted_content: encodeGoogleReasoningToken({
        text: reasoning.text,
        signature: reasoning.signature,
      }),
    };
  }
  if (reasoning.provider === 'anthropic' && reasoning.signature !== undefined) {
    return {
      id,
      type: 'reasoning',
      summary: asSummary(shown),
      encrypted_content: encodeAnthropicReasoningToken({
        thinking: reasoning.text,
        signature: reasoning.signature,
      }),
    };
  }
  return { id, type: 'reasoning', summary: asSummary(shown) };
}

export function outputFunctionCall(
  id: string,
  callId: string,
  toolName: string,
  argumentsText: string,
  status: 'in_progress' | 'completed',
): ResponsesOutputFunctionCall {
  const { namespace, name } = splitQualifiedName(toolName);
  return {
    id,
    type: 'function_call',
    status,
    arguments: argumentsText,
    call_id: callId,
    name,
    ...(namespace !== undefined ? { namespace } : {}),
  };
}

export interface ResponsesTerminalStatus {
  status: 'completed' | 'incomplete' | 'failed';
  incompleteDetails: { reason: string } | null;
}

/** The dialect's only finish words are the response status and `incomplete_details.reason`. */
export function mapResponsesTerminalStatus(finishReason: FinishReason): ResponsesTerminalStatus {
  switch (finishReason.unified) {
    case 'length':
      return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
    case 'content-filter':
      return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
    case 'error':
      return { status: 'failed', incompleteDetails: null };
    case 'stop':
    case 'tool-calls':
    case 'pause':
    case 'refusal':
    case 'other':
      return { status: 'completed', incompleteDetails: null };
  }
}
