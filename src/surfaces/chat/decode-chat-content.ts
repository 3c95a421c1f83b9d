import type { CallOrigins } from '../../canonical/call-origins.ts';
import type {
  ImagePart,
  ImageSource,
  TextPart,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import {
  decodeChatCacheControl,
  isJsonObject,
  reportUnknownFields,
  type JsonObject,
} from './chat-decode-support.ts';

const textPartFields = new Set(['type', 'text', 'cache_control']);
const imagePartFields = new Set(['type', 'image_url', 'cache_control']);
const imageUrlFields = new Set(['url', 'detail']);

/** `data:<media type>[;params];base64,<data>` (RFC 2397); only base64 payloads are carried. */
const dataUrlPattern = /^data:([^;,]+)((?:;[^;,]*)*?);base64,(.*)$/s;

export type ChatContentKind = 'text' | 'text-and-image';

/**
 * Decodes a message's `content` (a string or an array of parts) into canonical text and image
 * parts. `kind` says which part types the role may carry; everything else is an issue.
 */
export function decodeChatContent(
  content: unknown,
  kind: 'text',
  path: string,
  issues: TranslationIssue[],
  origins?: CallOrigins,
): TextPart[];
export function decodeChatContent(
  content: unknown,
  kind: ChatContentKind,
  path: string,
  issues: TranslationIssue[],
  origins?: CallOrigins,
): Array<TextPart | ImagePart>;
export function decodeChatContent(
  content: unknown,
  kind: ChatContentKind,
  path: string,
  issues: TranslationIssue[],
  origins?: CallOrigins,
): Array<TextPart | ImagePart> {
  if (typeof content === 'string') {
    const part: TextPart = { type: 'text', text: content };
    origins?.record(part, path);
    return [part];
  }
  if (!Array.isArray(content)) {
    issues.push({
      path,
      reason: 'Content must be a string or an array of parts; only assistant content may be null.',
    });
    return [];
  }
  const parts: Array<TextPart | ImagePart> = [];
  content.forEach((part: unknown, index) => {
    const partPath = `${path}[${index}]`;
    const decoded = decodeChatContentPart(part, kind, partPath, issues);
    if (decoded !== undefined) parts.push(origins?.record(decoded, partPath) ?? decoded);
  });
  return parts;
}

function decodeChatContentPart(
  part: unknown,
  kind: ChatContentKind,
  path: string,
  issues: TranslationIssue[],
): TextPart | ImagePart | undefined {
  if (!isJsonObject(part)) {
    issues.push({ path, reason: 'A content part must be an object.' });
    return undefined;
  }
  const type = part['type'];
  if (type === 'text') return decodeChatTextPart(part, path, issues);
  if (type === 'image_url' && kind === 'text-and-image') {
    return decodeChatImagePart(part, path, issues);
  }
  if (type === 'input_audio' || type === 'file') {
    issues.push({
      path,
      reason: `\`${type}\` content parts cannot be carried to other upstreams.`,
    });
    return undefined;
  }
  issues.push({
    path: `${path}.type`,
    reason: `Content parts of type \`${String(type)}\` are not supported in this message.`,
  });
  return undefined;
}

function decodeChatTextPart(
  part: JsonObject,
  path: string,
  issues: TranslationIssue[],
): TextPart | undefined {
  reportUnknownFields(part, textPartFields, path, issues);
  const text = part['text'];
  if (typeof text !== 'string') {
    issues.push({ path: `${path}.text`, reason: 'A text part needs a string `text`.' });
    return undefined;
  }
  const cache = decodeChatCacheControl(part['cache_control'], `${path}.cache_control`, issues);
  return cache === undefined ? { type: 'text', text } : { type: 'text', text, cache };
}

function decodeChatImagePart(
  part: JsonObject,
  path: string,
  issues: TranslationIssue[],
): ImagePart | undefined {
  reportUnknownFields(part, imagePartFields, path, issues);
  const imageUrl = part['image_url'];
  if (!isJsonObject(imageUrl)) {
    issues.push({ path: `${path}.image_url`, reason: '`image_url` must be an object with `url`.' });
    return undefined;
  }
  reportUnknownFields(imageUrl, imageUrlFields, `${path}.image_url`, issues);
  const detail = imageUrl['detail'];
  if (detail !== undefined && detail !== null && detail !== 'auto') {
    // Only OpenAI upstreams know a resolution hint; elsewhere the effect would be lost.
    issues.push({
      path: `${path}.image_url.detail`,
      reason: `Image \`detail\` "${String(detail)}" has no equivalent on this route; use "auto".`,
    });
  }
  const source = decodeChatImageUrl(imageUrl['url'], `${path}.image_url.url`, issues);
  if (source === undefined) return undefined;
  const cache = decodeChatCacheControl(part['cache_control'], `${path}.cache_control`, issues);
  return cache === undefined ? { type: 'image', source } : { type: 'image', source, cache };
}

function decodeChatImageUrl(
  url: unknown,
  path: string,
  issues: TranslationIssue[],
): ImageSource | undefined {
  if (typeof url !== 'string') {
    issues.push({ path, reason: 'The image `url` must be a string.' });
    return undefined;
  }
  if (url.startsWith('data:')) {
    const match = dataUrlPattern.exec(url);
    if (match === null) {
      issues.push({ path, reason: 'Only base64 `data:` URLs with a media type are supported.' });
      return undefined;
    }
    return { kind: 'base64', mediaType: match[1] ?? '', data: match[3] ?? '' };
  }
  if (/^https?:\/\//i.test(url)) return { kind: 'url', url };
  issues.push({ path, reason: 'The image `url` must be an http(s) URL or a base64 `data:` URL.' });
  return undefined;
}
