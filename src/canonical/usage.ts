/**
 * Usage normalised across dialects (docs/architecture.md). Every dialect counts differently:
 * Anthropic's `input_tokens` excludes cache reads and writes, OpenAI's includes cached reads. Here
 * `total` is always the whole prompt and the parts add up to it: total = noCache + cacheRead +
 * cacheWrite5m + cacheWrite1h.
 */
export interface Usage {
  inputTokens: {
    total: number;
    noCache: number;
    cacheRead: number;
    cacheWrite5m: number;
    cacheWrite1h: number;
  };
  outputTokens: {
    total: number;
    /** Reasoning tokens, a subset of `total` where the upstream reports them. */
    reasoning: number;
  };
}

export function emptyUsage(): Usage {
  return {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 },
    outputTokens: { total: 0, reasoning: 0 },
  };
}

/** Builds a usage from its parts so that `total` is always their sum. */
export function usageFromParts(parts: {
  noCache: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  output: number;
  reasoning?: number;
}): Usage {
  const cacheRead = parts.cacheRead ?? 0;
  const cacheWrite5m = parts.cacheWrite5m ?? 0;
  const cacheWrite1h = parts.cacheWrite1h ?? 0;
  return {
    inputTokens: {
      total: parts.noCache + cacheRead + cacheWrite5m + cacheWrite1h,
      noCache: parts.noCache,
      cacheRead,
      cacheWrite5m,
      cacheWrite1h,
    },
    outputTokens: { total: parts.output, reasoning: parts.reasoning ?? 0 },
  };
}
