import type { AssistantContentPart } from './generation-call.ts';
import type { FinishReason } from './finish-reason.ts';
import type { Usage } from './usage.ts';

/** A finished, non-streamed generation in canonical form. */
export interface GenerationResult {
  /** Upstream response id, when it gave one. */
  id?: string;
  model?: string;
  content: AssistantContentPart[];
  finishReason: FinishReason;
  usage: Usage;
}
