import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import { stringSlot, type DeltaSlot } from '../shared/delta-shape.ts';

const deltaKeys = ['text', 'thinking', 'partial_json'] as const;

/**
 * Where an Anthropic stream event carries its piece of answer (shared/delta-shape.ts): a
 * `content_block_delta` with text, thinking or tool input JSON.
 */
export function anthropicDeltaSlot(data: unknown): DeltaSlot | undefined {
  if (!isJsonObject(data) || data.type !== 'content_block_delta') return undefined;
  return stringSlot(data.delta, deltaKeys);
}
