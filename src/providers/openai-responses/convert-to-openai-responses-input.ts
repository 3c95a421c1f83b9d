import type {
  AssistantContentPart,
  CanonicalMessage,
  ImagePart,
  ReasoningPart,
  TextPart,
  ToolResultPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import { findCurrentTurnStart } from '../../canonical/find-current-turn-start.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { OpenAIToolNames } from '../shared/openai-tool-names.ts';
import { markToolError } from '../shared/mark-tool-error.ts';

type InputItem = Record<string, unknown>;

export interface OpenAIResponsesInput {
  instructions?: string;
  input: InputItem[];
}

/** `detail` is required by the dialect; `auto` lets the model pick, as other upstreams do. */
function inputImage(part: ImagePart): InputItem {
  const url =
    part.source.kind === 'url'
      ? part.source.url
      : `data:${part.source.mediaType};base64,${part.source.data}`;
  return { type: 'input_image', image_url: url, detail: 'auto' };
}

const inputText = (part: TextPart): InputItem => ({ type: 'input_text', text: part.text });

/**
 * The dialect has no error flag on a function output: a failed tool says so in its output text
 * (docs/decisions/0004). Cache hints on parts are equivalent: OpenAI caches prompt prefixes
 * automatically.
 */
function functionCallOutput(part: ToolResultPart): InputItem {
  const failed = part.isError === true;
  let output: string | InputItem[];
  if (typeof part.content === 'string') {
    output = failed ? markToolError(part.content) : part.content;
  } else {
    output = part.content.map((entry) =>
      entry.type === 'text' ? inputText(entry) : inputImage(entry),
    );
    if (failed) output.unshift({ type: 'input_text', text: markToolError('') });
  }
  return { type: 'function_call_output', call_id: part.toolCallId, output };
}

function userItems(content: UserContentPart[]): InputItem[] {
  const items: InputItem[] = [];
  let parts: InputItem[] = [];
  const flush = () => {
    if (parts.length > 0) items.push({ type: 'message', role: 'user', content: parts });
    parts = [];
  };
  for (const part of content) {
    switch (part.type) {
      case 'text':
        parts.push(inputText(part));
        break;
      case 'image':
        parts.push(inputImage(part));
        break;
      case 'tool-result':
        flush();
        items.push(functionCallOutput(part));
        break;
      default:
        assertNever(part);
    }
  }
  flush();
  return items;
}

/** OpenAI reasoning goes back as it came: item id, summaries and encrypted content exact. */
function reasoningItem(part: ReasoningPart): InputItem {
  const summary = part.summary ?? (part.text === '' ? [] : [part.text]);
  return {
    type: 'reasoning',
    ...(part.itemId !== undefined ? { id: part.itemId } : {}),
    summary: summary.map((text) => ({ type: 'summary_text', text })),
    ...(part.encryptedContent !== undefined ? { encrypted_content: part.encryptedContent } : {}),
  };
}

/**
 * The `fc_` id of a function call that follows a reasoning item but lost its own id on the way
 * (a message-style client keeps only the call id): OpenAI pairs a replayed `rs_` item with the
 * items after it, so a call without an id beside a reasoning item with one is refused by OpenAI.
 * The id is derived from the reasoning item's, so every replay of the turn sends the same one.
 */
function functionCallIdAfter(
  reasoningId: string | undefined,
  position: number,
): string | undefined {
  if (reasoningId === undefined) return undefined;
  const stem = reasoningId.startsWith('rs_') ? reasoningId.slice(3) : reasoningId;
  return position === 0 ? `fc_${stem}` : `fc_${stem}_${position}`;
}

function assistantItems(
  content: AssistantContentPart[],
  path: string,
  finishedTurn: boolean,
  names: OpenAIToolNames,
  issues: TranslationIssue[],
): InputItem[] {
  const items: InputItem[] = [];
  let texts: InputItem[] = [];
  let reasoningId: string | undefined;
  let callsAfterReasoning = 0;
  const flush = () => {
    if (texts.length > 0) items.push({ type: 'message', role: 'assistant', content: texts });
    texts = [];
  };
  content.forEach((part, index) => {
    switch (part.type) {
      case 'text':
        texts.push({ type: 'output_text', text: part.text });
        return;
      case 'reasoning':
        flush();
        if (part.provider === 'openai') {
          items.push(reasoningItem(part));
          reasoningId = part.itemId;
          callsAfterReasoning = 0;
        }
        // OpenAI discards the reasoning of finished turns (find-current-turn-start): reasoning it
        // could not carry changes nothing there, so it is left out (equivalent).
        else if (!finishedTurn) {
          issues.push({
            path: `${path}[${index}]`,
            reason:
              part.provider === 'anthropic'
                ? 'Reasoning signed by Anthropic can only go back to an Anthropic upstream.'
                : part.provider === 'google'
                  ? 'Reasoning signed by Gemini can only go back to a Gemini upstream.'
                  : 'Unsigned reasoning has no equivalent on an OpenAI responses upstream.',
          });
        }
        return;
      case 'tool-call': {
        flush();
        const itemId = part.itemId ?? functionCallIdAfter(reasoningId, callsAfterReasoning);
        callsAfterReasoning += 1;
        items.push({
          type: 'function_call',
          ...(itemId !== undefined ? { id: itemId } : {}),
          call_id: part.toolCallId,
          name: names.toUpstream(part.toolName),
          arguments: part.input,
        });
        return;
      }
      default:
        assertNever(part);
    }
  });
  flush();
  return items;
}

/**
 * Canonical messages as responses input items. A leading system message of one text part becomes
 * `instructions` exactly; every other system message becomes a `developer` message with its parts
 * kept apart. Tool results become `function_call_output` items matched by `call_id`.
 */
export function convertToOpenAIResponsesInput(
  messages: CanonicalMessage[],
  names: OpenAIToolNames,
  issues: TranslationIssue[],
): OpenAIResponsesInput {
  const result: OpenAIResponsesInput = { input: [] };
  const currentTurnStart = findCurrentTurnStart(messages);
  messages.forEach((message, index) => {
    const path = `messages[${index}].content`;
    switch (message.role) {
      case 'system': {
        const [only] = message.content;
        if (index === 0 && message.content.length === 1 && only !== undefined) {
          result.instructions = only.text;
        } else if (message.content.length > 0) {
          result.input.push({
            type: 'message',
            role: 'developer',
            content: message.content.map(inputText),
          });
        }
        return;
      }
      case 'user':
        result.input.push(...userItems(message.content));
        return;
      case 'assistant':
        result.input.push(
          ...assistantItems(message.content, path, index < currentTurnStart, names, issues),
        );
        return;
      default:
        assertNever(message);
    }
  });
  return result;
}
