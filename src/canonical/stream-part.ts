import type { FinishReason } from './finish-reason.ts';
import type { ReasoningFamily } from './generation-call.ts';
import type { GenerationError } from './generation-error.ts';
import type { Usage } from './usage.ts';

/**
 * The typed parts of a generation stream, addressed by id (docs/architecture.md). A provider
 * decoder emits them without knowing the client dialect; a surface encoder renders them without
 * knowing the upstream. Blocks never interleave their start/end unless ids differ (parallel tool
 * calls).
 */
export type StreamPart =
  | {
      type: 'response-start';
      /** Upstream response id, when it gave one. */
      id?: string;
      model?: string;
      /** Input usage known at the start (Anthropic `message_start`), if any. */
      usage?: Usage;
    }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | {
      type: 'reasoning-start';
      id: string;
      provider?: ReasoningFamily;
      itemId?: string;
      /** Anthropic `redacted_thinking` arrives whole at its start. */
      redactedData?: string;
    }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | {
      type: 'reasoning-end';
      id: string;
      signature?: string;
      encryptedContent?: string;
      summary?: string[];
    }
  | { type: 'tool-input-start'; id: string; toolName: string; itemId?: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-input-end'; id: string }
  | { type: 'finish'; finishReason: FinishReason; usage: Usage }
  | { type: 'error'; error: GenerationError };

export type StreamPartType = StreamPart['type'];

/** Compile-time exhaustiveness check for `switch (part.type)`. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
