import type { ImagePart, TextPart, TranslationIssue } from '../../canonical/generation-call.ts';
import { isAbsent, isRecord, reportUnknownFields } from './responses-json-value.ts';

/** Content parts of messages and of function call outputs. */

export type ResponsesContentRole = 'user' | 'assistant' | 'system';

const textFields = new Set(['type', 'text']);
/** `logprobs` describe how a past answer was sampled; replaying the text loses nothing. */
const outputTextFields = new Set(['type', 'text', 'annotations', 'logprobs']);
const imageFields = new Set(['type', 'image_url', 'file_id', 'detail']);

/**
 * `detail` only tunes how an OpenAI model samples the image. `auto`, `high` and `original` ask for
 * at least the fidelity that other upstreams always use; `low` asks for a downscaled, cheaper
 * image that no other upstream offers.
 */
const equivalentDetails = new Set(['auto', 'high', 'original']);

const dataUrl = /^data:([^;,]+);base64,([A-Za-z0-9+/=\s]*)$/;

export function decodeResponsesImage(
  part: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
): ImagePart | undefined {
  reportUnknownFields(part, imageFields, path, issues);
  if (!isAbsent(part.detail) && !equivalentDetails.has(String(part.detail))) {
    issues.push({
      path: `${path}.detail`,
      reason: `Image detail "${String(part.detail)}" has no equivalent on this route; use "auto".`,
    });
  }
  if (!isAbsent(part.file_id)) {
    issues.push({
      path: `${path}.file_id`,
      reason:
        'Uploaded file references are not available on this route; send the image as a data: or https: URL.',
    });
    return undefined;
  }
  const url = part.image_url;
  if (typeof url !== 'string') {
    issues.push({ path: `${path}.image_url`, reason: 'An image needs an image_url.' });
    return undefined;
  }
  const data = dataUrl.exec(url);
  if (data !== null) {
    return {
      type: 'image',
      source: {
        kind: 'base64',
        mediaType: data[1] ?? '',
        data: (data[2] ?? '').replace(/\s/g, ''),
      },
    };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { kind: 'url', url } };
  issues.push({
    path: `${path}.image_url`,
    reason: 'Only base64 data: URLs and http(s) URLs can be carried on this route.',
  });
  return undefined;
}

/** One part of a message's `content`; assistant and system messages carry text only. */
export function decodeResponsesMessagePart(
  part: unknown,
  role: ResponsesContentRole,
  path: string,
  issues: TranslationIssue[],
): TextPart | ImagePart | undefined {
  if (!isRecord(part)) {
    issues.push({ path, reason: 'A content part must be an object.' });
    return undefined;
  }
  switch (part.type) {
    case 'input_text':
    case 'output_text': {
      reportUnknownFields(
        part,
        part.type === 'input_text' ? textFields : outputTextFields,
        path,
        issues,
      );
      if (Array.isArray(part.annotations) && part.annotations.length > 0) {
        issues.push({
          path: `${path}.annotations`,
          reason: 'Annotations (citations) have no equivalent on this route.',
        });
      }
      if (typeof part.text !== 'string') {
        issues.push({ path: `${path}.text`, reason: 'A text part needs a string text.' });
        return undefined;
      }
      return { type: 'text', text: part.text };
    }
    case 'input_image':
      if (role !== 'user') {
        issues.push({
          path,
          reason: `Images in ${role} messages have no equivalent on this route.`,
        });
        return undefined;
      }
      return decodeResponsesImage(part, path, issues);
    case 'refusal':
      issues.push({ path, reason: 'Refusal parts have no equivalent on this route.' });
      return undefined;
    default:
      issues.push({
        path: `${path}.type`,
        reason: `Content type "${String(part.type)}" has no equivalent on this route.`,
      });
      return undefined;
  }
}

/** A function call output: a string, or text and image parts (Codex sends both forms). */
export function decodeResponsesToolOutput(
  output: unknown,
  path: string,
  issues: TranslationIssue[],
): string | Array<TextPart | ImagePart> {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) {
    issues.push({ path, reason: 'A function call output must be a string or an array of parts.' });
    return '';
  }
  const parts: Array<TextPart | ImagePart> = [];
  output.forEach((part, index) => {
    const partPath = `${path}[${index}]`;
    if (isRecord(part) && part.type === 'input_text') {
      reportUnknownFields(part, textFields, partPath, issues);
      if (typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
      else issues.push({ path: `${partPath}.text`, reason: 'A text part needs a string text.' });
      return;
    }
    if (isRecord(part) && part.type === 'input_image') {
      const image = decodeResponsesImage(part, partPath, issues);
      if (image !== undefined) parts.push(image);
      return;
    }
    issues.push({
      path: partPath,
      reason:
        'Only input_text and input_image parts of a function call output can be carried on this route.',
    });
  });
  return parts;
}
