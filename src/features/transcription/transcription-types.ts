/** The text parts of a transcription request (docs/transcription.md), as they shape the answer. */
export interface TranscriptionParameters {
  model: string;
  language?: string;
  prompt?: string;
  /** Only `json` (docs/decisions/0067). */
  response_format: 'json';
}

/** What an upstream reported it used, in either of OpenAI's transcription usage shapes. */
export type TranscriptionUsage =
  | { type: 'duration'; seconds: number }
  | { type: 'tokens'; inputTokens: number; outputTokens: number };

/** The answer: `{text}`. */
export interface TranscriptionAnswer {
  text: string;
}
