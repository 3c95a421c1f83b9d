import type {
  AssistantContentPart,
  CanonicalMessage,
  ImagePart,
  TextPart,
  ToolResultPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { walkConversation } from '../shared/walk-conversation.ts';
import {
  isJsonObject,
  parseJsonText,
  type JsonTextResult,
} from '../../wire/messages/messages-json-text.ts';

export type GeminiPart = Record<string, unknown>;

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiConversation {
  systemInstruction?: { parts: GeminiPart[] };
  contents: GeminiContent[];
}

function imagePart(
  part: ImagePart,
  path: string,
  issues: TranslationIssue[],
): GeminiPart | undefined {
  if (part.source.kind === 'url') {
    // Gemini fetches no arbitrary URL for an image part: it takes the bytes inline.
    issues.push({ path, reason: 'Gemini takes images inline (base64), not by URL' });
    return undefined;
  }
  return { inlineData: { mimeType: part.source.mediaType, data: part.source.data } };
}

/** Who called each tool call id, so a result can name its function as Gemini requires. */
function toolNamesById(messages: CanonicalMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') names.set(part.toolCallId, part.toolName);
    }
  }
  return names;
}

/**
 * A tool result as `functionResponse`. Gemini's convention for the `response` object is `output`
 * for a result and `error` for a failure (Gemini API function calling guide); the client's text
 * is carried whole as that string.
 */
function functionResponsePart(
  part: ToolResultPart,
  path: string,
  names: Map<string, string>,
  issues: TranslationIssue[],
): GeminiPart | undefined {
  const name = part.toolName ?? names.get(part.toolCallId);
  if (name === undefined) {
    issues.push({ path, reason: `no earlier tool call has the id "${part.toolCallId}"` });
    return undefined;
  }
  let text: string;
  if (typeof part.content === 'string') {
    text = part.content;
  } else {
    const images = part.content.findIndex((item) => item.type === 'image');
    if (images !== -1) {
      issues.push({
        path: `${path}.content[${images}]`,
        reason: 'Gemini function responses carry no images',
      });
      return undefined;
    }
    text = (part.content as TextPart[]).map((item) => item.text).join('');
  }
  return {
    functionResponse: {
      name,
      response: part.isError === true ? { error: text } : { output: text },
    },
  };
}

function userPart(
  part: UserContentPart,
  path: string,
  names: Map<string, string>,
  issues: TranslationIssue[],
): GeminiPart | undefined {
  switch (part.type) {
    case 'text':
      // Cache hints are equivalent: Gemini caches repeated prompt prefixes on its own.
      return part.text === '' ? undefined : { text: part.text };
    case 'image':
      return imagePart(part, path, issues);
    case 'tool-result':
      return functionResponsePart(part, path, names, issues);
    default:
      return assertNever(part);
  }
}

/**
 * An assistant message as `model` parts. Gemini's signatures go back byte-identical on the part
 * they came with (docs/decisions/0153): a signed reasoning part with text is a `thought` part; one
 * with empty text hands its signature to the next part (a function call or text), or stands as an
 * empty text part when nothing follows.
 */
function modelParts(
  content: AssistantContentPart[],
  path: string,
  finishedTurn: boolean,
  issues: TranslationIssue[],
): GeminiPart[] {
  const parts: GeminiPart[] = [];
  let signature: string | undefined;
  const signed = (part: GeminiPart): GeminiPart => {
    if (signature === undefined) return part;
    const withSignature = { ...part, thoughtSignature: signature };
    signature = undefined;
    return withSignature;
  };
  const flush = () => {
    if (signature !== undefined) parts.push(signed({ text: '' }));
  };
  content.forEach((part, index) => {
    const partPath = `${path}.content[${index}]`;
    switch (part.type) {
      case 'text':
        if (part.text !== '' || signature !== undefined) parts.push(signed({ text: part.text }));
        return;
      case 'reasoning':
        if (part.provider === 'google') {
          flush();
          if (part.text === '' && part.signature !== undefined) signature = part.signature;
          else if (part.text !== '' || part.signature !== undefined) {
            parts.push({
              text: part.text,
              thought: true,
              ...(part.signature !== undefined ? { thoughtSignature: part.signature } : {}),
            });
          }
          return;
        }
        // Gemini reads no thought text back, only signatures: unsigned reasoning (a chat
        // client's `reasoning_content`) changes nothing there and is left out (equivalent).
        if (part.provider === undefined) return;
        // Another family's signed reasoning is as good as absent in a finished turn; in the turn
        // in progress the model would continue from it, which Gemini cannot (docs/translation.md).
        if (finishedTurn) return;
        issues.push({
          path: partPath,
          reason: `reasoning signed by ${part.provider === 'openai' ? 'OpenAI' : 'Anthropic'} cannot be sent to Gemini`,
        });
        return;
      case 'tool-call': {
        const parsed: JsonTextResult =
          part.input.trim() === '' ? { ok: true, value: {} } : parseJsonText(part.input);
        if (!parsed.ok || !isJsonObject(parsed.value)) {
          issues.push({
            path: `${partPath}.input`,
            reason: 'tool arguments must be a JSON object',
          });
          return;
        }
        parts.push(signed({ functionCall: { name: part.toolName, args: parsed.value } }));
        return;
      }
      default:
        assertNever(part);
    }
  });
  flush();
  return parts;
}

/**
 * Canonical messages as Gemini `systemInstruction` + `contents`. Leading system messages become
 * the system instruction; a system message inside the conversation has no place in Gemini.
 * Consecutive messages of one role are merged, as Gemini expects turns to alternate. Tool result
 * ids are not sent: Gemini pairs results with calls by name and order.
 */
export function encodeGeminiContents(
  messages: CanonicalMessage[],
  issues: TranslationIssue[],
): GeminiConversation {
  const system: GeminiPart[] = [];
  const names = toolNamesById(messages);
  const turns = walkConversation(messages, issues, 'Gemini', {
    system(part) {
      if (part.text !== '') system.push({ text: part.text });
    },
    encode: (message, path, beforeCurrentTurn) =>
      message.role === 'user'
        ? message.content.flatMap((part, partIndex) => {
            const encoded = userPart(part, `${path}.content[${partIndex}]`, names, issues);
            return encoded === undefined ? [] : [encoded];
          })
        : modelParts(message.content, path, beforeCurrentTurn, issues),
  });
  const contents: GeminiContent[] = turns.map(({ role, parts }) => ({
    role: role === 'user' ? 'user' : 'model',
    parts,
  }));
  return {
    ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}),
    contents,
  };
}
