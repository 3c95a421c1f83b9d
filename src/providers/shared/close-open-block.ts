import type { StreamPart } from '../../canonical/stream-part.ts';

/** A content block an upstream stream opened by index and has not closed yet. */
export type OpenBlock =
  | { kind: 'text'; id: string }
  | { kind: 'reasoning'; id: string; signature?: string; redactedData?: string }
  | { kind: 'tool'; id: string };

/**
 * Closes the block at `index` of a stream whose blocks are numbered (Anthropic's and Converse's
 * `contentBlockStop`): its canonical end part, the reasoning's signature with it; nothing for an
 * index that is not open.
 */
export function closeOpenBlock(blocks: Map<number, OpenBlock>, index: number): StreamPart[] {
  const block = blocks.get(index);
  if (block === undefined) return [];
  blocks.delete(index);
  switch (block.kind) {
    case 'text':
      return [{ type: 'text-end', id: block.id }];
    case 'reasoning':
      return [
        {
          type: 'reasoning-end',
          id: block.id,
          ...(block.signature !== undefined ? { signature: block.signature } : {}),
        },
      ];
    case 'tool':
      return [{ type: 'tool-input-end', id: block.id }];
  }
}
