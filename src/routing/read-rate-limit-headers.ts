type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** OpenAI's reset durations: `1s`, `6m0s`, `1.5s`, `20ms`, `1h2m3s`. Milliseconds, or undefined. */
export function parseResetDuration(text: string): number | undefined {
  const parts =
    /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/.exec(
      text.trim(),
    );
  if (parts === null || text.trim() === '') return undefined;
  const [, hours, minutes, seconds, millis] = parts;
  return (
    Number(hours ?? 0) * 3_600_000 +
    Number(minutes ?? 0) * 60_000 +
    Number(seconds ?? 0) * 1_000 +
    Number(millis ?? 0)
  );
}

/**
 * Each counter's header names, spelled out once: names built per answer cost a string
 * concatenation and a hash each before the lookup, on every answer of every upstream.
 * Anthropic's counters (requests, tokens, input-tokens, output-tokens) reset at an RFC 3339 time.
 */
const anthropicCounters = ['requests', 'tokens', 'input-tokens', 'output-tokens'].map(
  (counter) => ({
    remaining: `anthropic-ratelimit-${counter}-remaining`,
    reset: `anthropic-ratelimit-${counter}-reset`,
  }),
);
/** OpenAI's (and Azure's, and most compatible servers') counters reset after a duration. */
const openaiCounters = ['requests', 'tokens'].map((counter) => ({
  remaining: `x-ratelimit-remaining-${counter}`,
  reset: `x-ratelimit-reset-${counter}`,
}));

/**
 * When a counter the upstream reports on an answer is used up (`remaining` 0): the latest reset
 * among those at 0 (epoch ms), or 0 when none is exhausted. Costs a few header lookups on every
 * answer, nothing more, when the upstream sends no such headers.
 */
export function readExhaustedUntil(headers: Headers, now: number): number {
  let until = 0;
  for (const counter of anthropicCounters) {
    if (header(headers, counter.remaining) !== '0') continue;
    const reset = Date.parse(header(headers, counter.reset) ?? '');
    if (!Number.isNaN(reset)) until = Math.max(until, reset);
  }
  for (const counter of openaiCounters) {
    if (header(headers, counter.remaining) !== '0') continue;
    const reset = parseResetDuration(header(headers, counter.reset) ?? '');
    if (reset !== undefined) until = Math.max(until, now + reset);
  }
  return until > now ? until : 0;
}

/**
 * How long a 429 asks to wait (ms): `retry-after-ms`, else `retry-after` (seconds or a date), else
 * the reset of a counter at 0; undefined when the upstream says nothing.
 */
export function readRetryAfterMs(headers: Headers, now: number): number | undefined {
  const millis = Number(header(headers, 'retry-after-ms'));
  if (Number.isFinite(millis) && millis > 0) return millis;
  const after = header(headers, 'retry-after')?.trim();
  if (after !== undefined && after !== '') {
    if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
    const date = Date.parse(after);
    if (!Number.isNaN(date) && date > now) return date - now;
  }
  const exhausted = readExhaustedUntil(headers, now);
  return exhausted > 0 ? exhausted - now : undefined;
}
