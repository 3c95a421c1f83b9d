import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import { copyWith } from '../../shared/copy-with.ts';

/** The Messages API accepts at most four cache breakpoints per request. */
export const anthropicMaxCacheBreakpoints = 4;

type Block = Record<string, unknown>;

const hasMarker = (block: unknown): boolean =>
  isJsonObject(block) && isJsonObject(block.cache_control);

const isOneHourMarker = (block: unknown): boolean =>
  isJsonObject(block) && isJsonObject(block.cache_control) && block.cache_control.ttl === '1h';

function blocksOf(content: unknown): unknown[] {
  return Array.isArray(content) ? content : [];
}

/** Every block of the messages, including those nested in tool results. */
function messageBlocks(body: Block): unknown[] {
  const blocks: unknown[] = [];
  for (const message of blocksOf(body.messages)) {
    if (!isJsonObject(message)) continue;
    for (const block of blocksOf(message.content)) {
      blocks.push(block);
      if (isJsonObject(block)) blocks.push(...blocksOf(block.content));
    }
  }
  return blocks;
}

export function countAnthropicCacheBreakpoints(body: Block): number {
  const all = [...blocksOf(body.system), ...blocksOf(body.tools), ...messageBlocks(body)];
  return all.filter(hasMarker).length;
}

/**
 * A block the upstream lets carry a marker: not thinking (the API refuses markers there) and
 * not a text block without visible text (refused as empty; docs/clients.md).
 */
function isCacheable(block: unknown): block is Block {
  if (!isJsonObject(block)) return false;
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return typeof block.text === 'string' && block.text.trim() !== '';
  return true;
}

const autoMarker = { type: 'ephemeral' } as const;

/** The content with a marker on its last cacheable block, or undefined when there is none. */
function markLastBlock(content: unknown): { content: unknown[] } | 'already-marked' | undefined {
  const blocks =
    typeof content === 'string' ? [{ type: 'text', text: content }] : blocksOf(content);
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    if (!isCacheable(block)) continue;
    if (hasMarker(block)) return 'already-marked';
    const marked = [...blocks];
    marked[index] = copyWith(block, { cache_control: autoMarker });
    return { content: marked };
  }
  return undefined;
}

/**
 * docs/api.md: with the prompt-cache header `auto` (or absent) the gateway adds one five-minute
 * marker at the end of the prompt, on the last cacheable block of the last message, falling back
 * to the last system block. It never changes a client's marker (a `ttl: "1h"` stays), never
 * exceeds four breakpoints and never puts a five-minute marker before a one-hour one (the API
 * requires longer TTLs first). With `off` nothing is added. Returns a new body; the input is
 * not modified. Used by both the cross-dialect encoder and the same-dialect fast path.
 */
export function addAnthropicCacheMarkers(body: Block, promptCache: 'auto' | 'off'): Block {
  if (promptCache === 'off') return body;
  if (countAnthropicCacheBreakpoints(body) >= anthropicMaxCacheBreakpoints) return body;
  const messages = blocksOf(body.messages);
  const last = messages.at(-1);
  if (isJsonObject(last)) {
    const marked = markLastBlock(last.content);
    if (marked === 'already-marked') return body;
    if (marked !== undefined) {
      const nextMessages = [...messages];
      nextMessages[messages.length - 1] = { ...last, content: marked.content };
      return { ...body, messages: nextMessages };
    }
  }
  if (messageBlocks(body).some(isOneHourMarker)) return body;
  const system = markLastBlock(body.system);
  if (system === undefined || system === 'already-marked') return body;
  return { ...body, system: system.content };
}
