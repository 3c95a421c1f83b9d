import { createHash } from 'node:crypto';

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
 * Clients move their cache marker to the newest turn, so the first user message carries one on
 * the first turn only: markers are no part of what names the conversation.
 */
function withoutCacheMarkers(key: string, value: unknown): unknown {
  return key === 'cache_control' ? undefined : value;
}

function digest(value: unknown): string {
  const text =
    typeof value === 'string' ? value : (JSON.stringify(value, withoutCacheMarkers) ?? '');
  return createHash('sha256')
    .update(text.length > hashedChars ? text.slice(0, hashedChars) : text)
    .digest('base64url')
    .slice(0, 22);
}

/** What starts the conversation in each dialect: its system text and first user turn. */
function opening(body: Record<string, unknown>): unknown[] | undefined {
  const messages = body.messages;
  if (Array.isArray(messages)) {
    // Chat puts the system prompt among the messages; the first user turn ends the opening.
    const end = messages.findIndex((message) => (message as { role?: unknown }).role === 'user');
    return [body.system, messages.slice(0, end + 1)];
  }
  const input = body.input;
  if (typeof input === 'string') return [body.instructions, input];
  if (Array.isArray(input)) return [body.instructions, input[0]];
  return undefined;
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
  const start = opening(body);
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
