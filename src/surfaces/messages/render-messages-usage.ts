import type { Usage } from '../../canonical/usage.ts';
import type { MessagesUsageBody } from '../../wire/messages/messages-wire-types.ts';

/**
 * Usage with the dialect's own semantics (docs/clients.md): `input_tokens` excludes cache reads and
 * writes; writes are reported in total and per TTL. Every number comes from the canonical usage.
 */
export function renderMessagesUsage(usage: Usage): MessagesUsageBody {
  const input = usage.inputTokens;
  return {
    input_tokens: input.noCache,
    output_tokens: usage.outputTokens.total,
    cache_creation_input_tokens: input.cacheWrite5m + input.cacheWrite1h,
    cache_read_input_tokens: input.cacheRead,
    cache_creation: {
      ephemeral_5m_input_tokens: input.cacheWrite5m,
      ephemeral_1h_input_tokens: input.cacheWrite1h,
    },
  };
}
