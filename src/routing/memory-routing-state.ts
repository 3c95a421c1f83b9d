import type { RoutingState } from './routing-state.ts';
import {
  applyHealthEvent,
  createTargetHealth,
  type HealthEvent,
  type TargetHealth,
} from './target-health.ts';

interface Pin {
  target: string;
  expiresAt: number;
}

/**
 * Routing state of one process. The affinity table is a bounded LRU (a Map in use order): a pin
 * read or written moves to the end, and the oldest goes once `maxPins` is reached.
 */
export class MemoryRoutingState implements RoutingState {
  readonly #health = new Map<string, TargetHealth>();
  readonly #pins = new Map<string, Pin>();
  readonly #maxPins: number;
  readonly #now: () => number;
  /** Told of every event applied here (the Redis adapter forwards the local ones). */
  onPublish: ((event: HealthEvent) => void) | undefined;

  constructor(options: { maxPins: number; now: () => number }) {
    this.#maxPins = options.maxPins;
    this.#now = options.now;
  }

  health(id: string): TargetHealth {
    let health = this.#health.get(id);
    if (health === undefined) {
      health = createTargetHealth();
      this.#health.set(id, health);
    }
    return health;
  }

  publish(event: HealthEvent): void {
    this.apply(event);
    this.onPublish?.(event);
  }

  /** Applies an event without telling anyone (what another process learned). */
  apply(event: HealthEvent): void {
    applyHealthEvent(this.health(event.target), event);
  }

  pinned(session: string): string | undefined {
    const pin = this.#pins.get(session);
    if (pin === undefined) return undefined;
    this.#pins.delete(session);
    if (pin.expiresAt <= this.#now()) return undefined;
    this.#pins.set(session, pin);
    return pin.target;
  }

  pin(session: string, target: string, ttlMs: number): void {
    this.#pins.delete(session);
    this.#pins.set(session, { target, expiresAt: this.#now() + ttlMs });
    if (this.#pins.size > this.#maxPins) {
      const oldest = this.#pins.keys().next().value as string;
      this.#pins.delete(oldest);
    }
  }

  entries(): IterableIterator<[string, TargetHealth]> {
    return this.#health.entries();
  }

  forget(): void {
    this.#health.clear();
    this.#pins.clear();
  }

  get pinnedCount(): number {
    return this.#pins.size;
  }

  async close(): Promise<void> {}
}
