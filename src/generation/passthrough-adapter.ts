import type { FinishReason } from '../canonical/finish-reason.ts';
import type { Usage } from '../canonical/usage.ts';
import type { ProviderRequestOptions, UpstreamEvent } from '../providers/provider-codec.ts';
import type { DeltaSlot } from '../providers/shared/delta-shape.ts';

/** Reads usage off a relayed stream without decoding it into canonical parts. */
export interface UsageTap {
  /**
   * `usageOnly` marks chat's usage-only chunk (`choices: []`), which `dropUsageChunk` removes.
   * `parsed` is the event's data as the relay parsed it (undefined for chat's `[DONE]`).
   */
  observe(event: UpstreamEvent, parsed: unknown): { usageOnly: boolean } | undefined;
  /** What the upstream reported so far (input may be known before output). */
  usage(): Usage | undefined;
  finishReason(): FinishReason | undefined;
  /** Whether the upstream's own end-of-response event was seen. */
  completed(): boolean;
  /** Whether the upstream sent its own error event (already relayed to the client). */
  failed(): boolean;
}

export interface PreparedPassthrough {
  body: Record<string, unknown>;
  /**
   * Chat only: the gateway asked the upstream for a usage chunk the client did not ask for;
   * relaying must drop that chunk so the client sees exactly its own dialect.
   */
  dropUsageChunk?: boolean;
}

/**
 * The same-dialect fast path of one dialect (docs/architecture.md): the client's body with the
 * gateway's own changes only, and a cheap usage tap for the relayed answer.
 */
export interface PassthroughAdapter {
  prepare(body: Record<string, unknown>, options: ProviderRequestOptions): PreparedPassthrough;
  createUsageTap(): UsageTap;
  /** Usage and finish of a non-streamed upstream body. */
  readResultUsage(body: unknown): { usage: Usage; finishReason?: FinishReason } | undefined;
  /** Whether a relayed event names the model (so the catalog id must replace the upstream's). */
  carriesModel(event: UpstreamEvent): boolean;
  /** Characters of answer in a relayed event's parsed data (count-relayed-text.ts). */
  countRelayedText(data: unknown): number;
  /**
   * Where a parsed delta event carries its text (the providers' *-delta-slot.ts), so later deltas of the
   * same shape are relayed unparsed (relayed-delta-shape.ts). None: every event is parsed.
   */
  deltaSlot?(data: unknown): DeltaSlot | undefined;
}
