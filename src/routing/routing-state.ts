import type { HealthEvent, TargetHealth } from './target-health.ts';

/**
 * Where routing keeps what it learns (docs/routing.md): each target's health and the session
 * affinity table. The in-process adapter is the whole state of one gateway; the Redis adapter
 * keeps the same local view and shares every health change and pin with the other processes.
 *
 * Reads are synchronous on purpose: a routing decision never waits for I/O, except an affinity
 * lookup that missed locally while the table is shared.
 */
export interface RoutingState {
  /** This process's view of a target or key scope (created healthy on first use). */
  health(id: string): TargetHealth;
  /** Applies a change here and, when shared, tells the other processes. */
  publish(event: HealthEvent): void;
  /** The target that last served a conversation, while its pin lasts. */
  pinned(session: string): string | undefined | Promise<string | undefined>;
  /** Keeps `session` on `target` for `ttlMs` (renewed by every answered turn). */
  pin(session: string, target: string, ttlMs: number): void;
  /** Every view this process holds, for metrics and the admin API. */
  entries(): IterableIterator<[string, TargetHealth]>;
  /** Forgets every target's health and every pin here (an operator's reset; health is relearned). */
  forget(): void;
  /** Sessions pinned in this process's table. */
  readonly pinnedCount: number;
  close(): Promise<void>;
}
