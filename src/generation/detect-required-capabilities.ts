import type { SurfaceName } from '../surfaces/surface-codec.ts';

export interface RequiredCapabilities {
  streaming: boolean;
  tools: boolean;
  vision: boolean;
  reasoning: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function hasBlock(value: unknown, types: ReadonlySet<string>, depth = 0): boolean {
  // Images hide inside tool results (messages) and content arrays (all dialects): look two deep.
  if (depth > 3) return false;
  for (const item of asArray(value)) {
    if (!isObject(item)) continue;
    if (typeof item.type === 'string' && types.has(item.type)) return true;
    if (hasBlock(item.content, types, depth + 1)) return true;
  }
  return false;
}

const imageTypes: Record<SurfaceName, ReadonlySet<string>> = {
  messages: new Set(['image']),
  chat: new Set(['image_url']),
  responses: new Set(['input_image']),
};

/**
 * What a raw, validated request body needs from the model (capabilities are enforced),
 * read without decoding it so the same-dialect fast path pays almost nothing.
 */
export function detectRequiredCapabilities(surface: SurfaceName, body: Json): RequiredCapabilities {
  const streaming = body.stream === true;
  const tools = asArray(body.tools).length > 0;
  const messages = surface === 'responses' ? asArray(body.input) : asArray(body.messages);
  const vision = hasBlock(messages, imageTypes[surface]);
  let reasoning: boolean;
  switch (surface) {
    case 'messages':
      reasoning = isObject(body.thinking) && body.thinking.type !== 'disabled';
      break;
    case 'chat':
      reasoning = typeof body.reasoning_effort === 'string' && body.reasoning_effort !== 'none';
      break;
    case 'responses':
      reasoning =
        isObject(body.reasoning) &&
        body.reasoning.effort !== undefined &&
        body.reasoning.effort !== 'none';
      break;
  }
  return { streaming, tools, vision, reasoning };
}
