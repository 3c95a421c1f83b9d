import { ApiError } from '../canonical/generation-error.ts';

/**
 * docs/api.md: `X-Switchyard-Prompt-Cache` (or the neutral `X-Router-Prompt-Cache`): `auto` or
 * absent lets the gateway add a five-minute marker; `off` adds none; any other value is 400.
 */
export function readPromptCacheMode(
  headers: Record<string, string | string[] | undefined>,
): 'auto' | 'off' {
  const value = headers['x-switchyard-prompt-cache'] ?? headers['x-router-prompt-cache'];
  if (value === undefined) return 'auto';
  const text = (Array.isArray(value) ? value.join(',') : value).trim().toLowerCase();
  if (text === 'auto' || text === 'off') return text;
  throw new ApiError('invalid_header', 'X-Switchyard-Prompt-Cache must be "auto" or "off".');
}
