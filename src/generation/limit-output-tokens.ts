import type { SurfaceName } from '../surfaces/surface-codec.ts';
import { copyWith } from '../shared/copy-with.ts';

/** Where each dialect's body says how many tokens the answer may have. */
const limitFields: Record<SurfaceName, readonly string[]> = {
  messages: ['max_tokens'],
  responses: ['max_output_tokens'],
  // Chat has two names for it; whichever the client sent is the one limited.
  chat: ['max_completion_tokens', 'max_tokens'],
};

/**
 * A same-dialect body whose output limit is `limit`, the one the credit hold was sized for
 * (docs/decisions/0015): a larger limit, or none, is lowered to it, so the upstream cannot write
 * more than the hold covers, and a message-style thinking budget at or above the new limit is
 * lowered to just below it. The body is returned as it is when it already says `limit`.
 */
export function limitOutputTokens(
  surface: SurfaceName,
  body: Record<string, unknown>,
  limit: number,
): Record<string, unknown> {
  const fields = limitFields[surface];
  const present = fields.filter((field) => body[field] !== undefined);
  const targets = present.length > 0 ? present : [fields[0] as string];
  if (targets.every((field) => body[field] === limit)) return body;
  // copyWith, not a spread: the limit may be a member the body lacks (copy-with.ts).
  const limited = copyWith(body, {});
  for (const field of targets) limited[field] = limit;
  // A thinking budget must stay below max_tokens: one the client sized for its own larger limit
  // would turn the lowered limit into an upstream 400, so it is lowered with it.
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (
    surface === 'messages' &&
    thinking?.type === 'enabled' &&
    typeof thinking.budget_tokens === 'number' &&
    thinking.budget_tokens >= limit
  ) {
    limited.thinking = { ...thinking, budget_tokens: limit - 1 };
  }
  return limited;
}
