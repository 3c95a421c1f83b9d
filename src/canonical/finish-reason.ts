export type UnifiedFinishReason =
  'stop' | 'length' | 'tool-calls' | 'content-filter' | 'pause' | 'refusal' | 'error' | 'other';

/** The normalised reason beside the upstream's own word, which surfaces may pass on. */
export interface FinishReason {
  unified: UnifiedFinishReason;
  raw: string | undefined;
}
