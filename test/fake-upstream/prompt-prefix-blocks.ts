import type { FakeDialect } from './fake-reply.ts';

/** One unit of a prompt's prefix, serialized without its cache marker. */
export interface PromptBlock {
  json: string;
  /** Anthropic only: the block carried `cache_control`, with this lifetime. */
  marker?: '5m' | '1h';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The marker is not part of what is cached: moving it along a conversation keeps the prefix. */
function anthropicBlock(place: string, block: unknown): PromptBlock {
  if (!isObject(block)) return { json: JSON.stringify([place, block]) };
  const { cache_control: marker, ...rest } = block;
  const json = JSON.stringify([place, rest]);
  if (!isObject(marker)) return { json };
  return { json, marker: marker.ttl === '1h' ? '1h' : '5m' };
}

/**
 * Anthropic caches in the order tools, system, messages ("Prompt caching"), block by block; a
 * string system prompt or message content is one block.
 */
function anthropicPrefix(body: Record<string, unknown>): PromptBlock[] {
  const blocks = listOf(body.tools).map((tool) => anthropicBlock('tool', tool));
  const system = body.system;
  if (typeof system === 'string') blocks.push(anthropicBlock('system', system));
  else blocks.push(...listOf(system).map((block) => anthropicBlock('system', block)));
  for (const message of listOf(body.messages)) {
    const role = isObject(message) ? String(message.role) : '';
    const content = isObject(message) ? message.content : undefined;
    if (Array.isArray(content)) blocks.push(...content.map((block) => anthropicBlock(role, block)));
    else blocks.push(anthropicBlock(role, content));
  }
  return blocks;
}

const unmarked = (value: unknown): PromptBlock => ({ json: JSON.stringify(value) });

/** OpenAI caches tools and then the conversation, whole messages (or input items) at a time. */
function openAiPrefix(dialect: FakeDialect, body: Record<string, unknown>): PromptBlock[] {
  const blocks = listOf(body.tools).map((tool) => unmarked(['tool', tool]));
  if (dialect === 'chat') return [...blocks, ...listOf(body.messages).map(unmarked)];
  if (typeof body.instructions === 'string')
    blocks.push(unmarked(['instructions', body.instructions]));
  if (typeof body.input === 'string') blocks.push(unmarked({ role: 'user', content: body.input }));
  else blocks.push(...listOf(body.input).map(unmarked));
  return blocks;
}

/**
 * Gemini caches implicitly, as OpenAI does: the system instruction, tools and then whole contents
 * (Gemini API "Context caching", implicit caching).
 */
function geminiPrefix(body: Record<string, unknown>): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  if (body.systemInstruction !== undefined)
    blocks.push(unmarked(['system', body.systemInstruction]));
  blocks.push(...listOf(body.tools).map((tool) => unmarked(['tool', tool])));
  return [...blocks, ...listOf(body.contents).map(unmarked)];
}

/** The prompt as the ordered units a provider's prompt cache matches prefixes of. */
export function promptPrefixBlocks(
  dialect: FakeDialect,
  body: Record<string, unknown>,
): PromptBlock[] {
  if (dialect === 'gemini') return geminiPrefix(body);
  return dialect === 'anthropic' ? anthropicPrefix(body) : openAiPrefix(dialect, body);
}
