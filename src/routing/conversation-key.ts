import { hash } from 'node:crypto';

type Headers = Record<string, string | string[] | undefined>;

/** How long an upstream keeps a prompt cache warm without a hit (Anthropic's default, OpenAI's). */
export const warmCacheMs = 5 * 60_000;
/** After a one-hour cache marker. */
export const longCacheMs = 60 * 60_000;

/** Session headers clients send on every turn (docs/clients.md), first match wins. */
const sessionHeaders = ['x-claude-code-session-id', 'session-id', 'x-session-id'];

/** Of a long system prompt or first message, this much is enough to tell conversations apart. */
const hashedChars = 16_384;

function firstHeader(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

/**
 * The text of one part of the opening: a string, or the text of its blocks (`text`, and for other
 * blocks their type). Cache markers are no part of it — clients move theirs to the newest turn,
 * so the first user message carries one on the first turn only.
 */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) {
    const content = (value as { content?: unknown } | null | undefined)?.content;
    const role = (value as { role?: unknown } | null | undefined)?.role;
    if (content === undefined) return '';
    return `${typeof role === 'string' ? role : ''}\u0000${textOf(content)}`;
  }
  let text = '';
  for (const item of value) {
    const block = item as { type?: unknown; text?: unknown; content?: unknown } | null;
    if (typeof item === 'string') text += item;
    else if (typeof block?.text === 'string') text += block.text;
    else if (block?.content !== undefined) text += textOf(block);
    else if (typeof block?.type === 'string') text += `\u0000${block.type}`;
    text += '\u0001';
    if (text.length > hashedChars) break;
  }
  return text;
}

/**
 * What starts the conversation in each dialect, as text: its system prompt and first user turn
 * (chat puts the system prompt among the messages, so every message up to the first user one).
 */
function openingText(body: Record<string, unknown>): string | undefined {
  const messages = body.messages;
  if (Array.isArray(messages)) {
    let text = `${textOf(body.system)}\u0002`;
    for (const message of messages) {
      text += `${textOf(message)}\u0002`;
      if ((message as { role?: unknown } | null)?.role === 'user' || text.length > hashedChars)
        break;
    }
    return text;
  }
  const input = body.input;
  if (typeof input === 'string') return `${textOf(body.instructions)}\u0002${input}`;
  if (Array.isArray(input)) return `${textOf(body.instructions)}\u0002${textOf(input[0])}`;
  return undefined;
}

/** A short digest of the opening (one call into OpenSSL, no hash object). */
function digest(text: string): string {
  return hash(
    'sha256',
    text.length > hashedChars ? text.slice(0, hashedChars) : text,
    'base64url',
  ).slice(0, 22);
}

/**
 * Names the conversation a request belongs to, for session affinity (docs/routing.md): the
 * client's own session signal when it sends one, else a hash of the system prompt and first user
 * message. Scoped by account and model, so two accounts never share a pin.
 */
export function conversationKey(
  headers: Headers,
  body: Record<string, unknown>,
  scope: string,
): string | undefined {
  for (const name of sessionHeaders) {
    const value = firstHeader(headers, name);
    if (value !== undefined) return `${scope}:h:${value.slice(0, 200)}`;
  }
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key !== '')
    return `${scope}:c:${body.prompt_cache_key.slice(0, 200)}`;
  const userId = (body.metadata as { user_id?: unknown } | undefined)?.user_id;
  if (typeof userId === 'string' && userId !== '') return `${scope}:u:${userId.slice(0, 300)}`;
  const start = openingText(body);
  return start === undefined ? undefined : `${scope}:o:${digest(start)}`;
}

function hasLongMarker(blocks: unknown): boolean {
  if (!Array.isArray(blocks)) return false;
  for (const block of blocks) {
    const marker = (block as { cache_control?: { ttl?: unknown } } | null)?.cache_control;
    if (marker?.ttl === '1h') return true;
  }
  return false;
}

/**
 * How long the conversation's cache can stay warm after this turn: an hour when the request
 * marks a block with a one-hour cache marker, else five minutes.
 */
export function warmFor(body: Record<string, unknown>): number {
  if (hasLongMarker(body.system) || hasLongMarker(body.tools)) return longCacheMs;
  const messages = body.messages;
  if (Array.isArray(messages)) {
    for (const message of messages) {
      if (hasLongMarker((message as { content?: unknown } | null)?.content)) return longCacheMs;
    }
  }
  return warmCacheMs;
}
