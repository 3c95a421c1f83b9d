import { createHash } from 'node:crypto';

/**
 * OpenAI's chat and responses APIs refuse a `user` longer than 64 characters ("Invalid 'user':
 * string too long. Expected a string with maximum length 64"); Claude Code's
 * `metadata.user_id` is a ~150-character JSON text.
 */
const maximumUserLength = 64;

/**
 * `user` is an opaque id for abuse tracking; a longer one is replaced by a stable hash of it,
 * which identifies the same end user just as well (docs/translation.md: mapped).
 */
export function toOpenAIUserId(user: string): string {
  if (user.length <= maximumUserLength) return user;
  return `sy-${createHash('sha256')
    .update(user)
    .digest('hex')
    .slice(0, maximumUserLength - 3)}`;
}
