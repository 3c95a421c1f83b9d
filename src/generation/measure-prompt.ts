import type { CountText } from './count-call-tokens.ts';

/**
 * How one walk of a request body turns what it holds into tokens: a text's tokens, and the
 * framing a provider adds around each message and tool, once for tools at all, and per image.
 */
export interface PromptMeasure {
  text: CountText;
  /** An object key of the prompt (a tool schema's), counted without a tokenizer call. */
  key: (key: string) => number;
  perMessage: number;
  perTool: number;
  /** Added once when the request has tools: the provider's own tool-use instructions. */
  toolsPreamble: number;
  /** Added once: the start of the prompt and the priming of the reply. */
  base: number;
  image: number;
}

const utf8Bytes: CountText = (text) => Buffer.byteLength(text, 'utf8');

/**
 * An upper bound where the gateway has no tokenizer of the model (docs/decisions/0100).
 * Byte-level BPE tokenizers never make a token of less than one byte, so a text's UTF-8 size
 * bounds it. Anthropic documents its tool-use system prompt at a few hundred tokens and images
 * at about (width × height) / 750 tokens after resizing to at most about 1 600; OpenAI's high
 * detail image is at most 1 445 tokens on GPT-4o and its patch models reach about 2 500.
 */
export const byteBound: PromptMeasure = {
  text: utf8Bytes,
  // Keys are ASCII in practice: a byte a character, without a call into the native side.
  key: (key) => key.length,
  perMessage: 8,
  perTool: 16,
  toolsPreamble: 512,
  base: 16,
  image: 2_500,
};

/**
 * A key of a tool schema as a tokenizer reads its JSON (`"type":`): the word, at about four
 * characters a token, and the punctuation around it. Counting each key with the tokenizer cost a
 * cache lookup apiece, as much as the rest of an 80 KB body's walk.
 */
function keyTokens(key: string): number {
  return 1 + Math.ceil(key.length / 4);
}

/**
 * The count with a model's own tokenizer under OpenAI's chat framing (three tokens a message and
 * three priming the reply; docs/decisions/0031) plus the functions' own wrapper, which OpenAI's
 * cookbook puts at about a dozen tokens in all and a few a function. Images at 765 tokens (a
 * four-tile picture), as count_tokens counts them.
 */
export function tokenizerCount(countText: CountText): PromptMeasure {
  return {
    text: countText,
    key: keyTokens,
    perMessage: 3,
    perTool: 8,
    toolsPreamble: 12,
    base: 3,
    image: 765,
  };
}

/**
 * About four characters a token: the prompt's estimate where the upstream never said and the
 * gateway has no tokenizer of the model (what a call cut short is charged, docs/decisions/0016).
 */
export const characterEstimate: PromptMeasure = tokenizerCount((text) =>
  Math.ceil(text.length / 4),
);

/** Top-level fields that configure the call and are not read by the model. */
const settingKeys = new Set([
  'model',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'seed',
  'stop',
  'stop_sequences',
  'metadata',
  'store',
  'user',
  'service_tier',
  'parallel_tool_calls',
  'previous_response_id',
  'include',
  'prompt_cache_key',
  'safety_identifier',
  'logprobs',
  'top_logprobs',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'truncation',
  'background',
  'thinking',
  'reasoning',
  'reasoning_effort',
]);

/** Opaque fields the model never reads as text (a thinking block's signature, cache markers). */
const opaqueKeys = new Set(['signature', 'cache_control']);

/** Keys of the message structure itself, whose framing `perMessage` stands for. */
const structureKeys = new Set(['role', 'content', 'type', 'text']);

/** Content parts of an image in the three dialects. */
const imageTypes = new Set(['image', 'image_url', 'input_image']);
/** Content parts of a file (a PDF, a text file) or of audio. */
const fileTypes = new Set(['document', 'file', 'input_file', 'input_audio']);
/** Fields that name a file the upstream fetches or looks up itself. */
const referenceKeys = new Set(['url', 'file_url', 'file_id']);

/**
 * A file part: inline, bounded by its data's size like any text (base64 is longer than its
 * bytes); by URL or file id, unbounded (the caller's context window caps it).
 */
function measureFile(part: Record<string, unknown>): number {
  let total = 0;
  for (const key in part) {
    const item = part[key];
    if (typeof item === 'string') {
      if (referenceKeys.has(key) && !item.startsWith('data:')) return Number.POSITIVE_INFINITY;
      total += item.length;
    } else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      total += measureFile(item as Record<string, unknown>);
    }
  }
  return total;
}

function measureValue(value: unknown, measure: PromptMeasure): number {
  if (typeof value === 'string') return measure.text(value);
  if (typeof value !== 'object' || value === null) return value === undefined ? 0 : 1;
  if (Array.isArray(value)) {
    let total = 0;
    for (const item of value) total += measureValue(item, measure);
    return total;
  }
  const part = value as Record<string, unknown>;
  if (typeof part.type === 'string') {
    if (imageTypes.has(part.type)) return measure.image;
    if (fileTypes.has(part.type)) return measureFile(part);
  }
  let total = 0;
  // for…in rather than Object.entries: this walks every node of a body (tool schemas included),
  // and an entries array per object cost ten times the walk itself on an 80 KB body.
  for (const key in part) {
    if (opaqueKeys.has(key)) continue;
    if (!structureKeys.has(key)) total += measure.key(key);
    total += measureValue(part[key], measure);
  }
  return total;
}

/**
 * The prompt of a request body in any of the three dialects, as `measure` counts it: every text
 * the model reads (system, messages or input, tool definitions with their schemas, tool calls and
 * results) and the framing around them, images at a fixed size, files at their size, capped by
 * the context window. Fields that only configure the call are left out.
 */
export function measurePrompt(
  body: Record<string, unknown>,
  measure: PromptMeasure,
  contextWindow: number,
): number {
  let total = measure.base;
  for (const key in body) {
    if (settingKeys.has(key)) continue;
    const value = body[key];
    total += measureValue(value, measure);
    if ((key === 'messages' || key === 'input') && Array.isArray(value)) {
      total += measure.perMessage * value.length;
    } else if (key === 'input' && typeof value === 'string') {
      total += measure.perMessage;
    } else if (key === 'tools' && Array.isArray(value) && value.length > 0) {
      total += measure.toolsPreamble + measure.perTool * value.length;
    }
    if (total >= contextWindow) return contextWindow;
  }
  return Math.min(contextWindow, total);
}
