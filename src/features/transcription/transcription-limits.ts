/** The transcription contract's limits (docs/transcription.md). */
export const transcriptionLimits = {
  /** 25 MiB: one byte more is 413 as soon as it arrives. */
  maxFileBytes: 25 * 1024 * 1024,
  /** 20 minutes by the header (data size ÷ byte rate); more is 413 `audio_too_long`. */
  maxDurationSeconds: 20 * 60,
  /** The `data` chunk header must start within these first bytes (docs/decisions/0066). */
  headerLookaheadBytes: 1024 * 1024,
  /** `language`, `prompt`, `response_format` and `model` parts; a longer value is 400. */
  maxFieldBytes: 64 * 1024,
  idempotencyKey: { min: 1, max: 80, pattern: /^[A-Za-z0-9._:-]+$/ },
  responseFormats: ['json'] as const,
} as const;
