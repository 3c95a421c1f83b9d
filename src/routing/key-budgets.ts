import type { UpstreamKey } from '../catalog/upstream-key.ts';

interface Window {
  startedAt: number;
  requests: number;
  tokens: number;
}

const minuteMs = 60_000;

/**
 * The upstream account's own per-minute limits of a key (`apiKeyEnv` entries with
 * `requestsPerMinute` / `tokensPerMinute`), counted by this process in fixed one-minute windows:
 * a key whose budget is spent is not chosen until its window turns.
 */
export class KeyBudgets {
  readonly #windows = new Map<string, Window>();

  #window(key: UpstreamKey, now: number): Window {
    let window = this.#windows.get(key.id);
    if (window === undefined || now - window.startedAt >= minuteMs) {
      window = { startedAt: now, requests: 0, tokens: 0 };
      this.#windows.set(key.id, window);
    }
    return window;
  }

  allows(key: UpstreamKey, now: number): boolean {
    if (key.requestsPerMinute === undefined && key.tokensPerMinute === undefined) return true;
    const window = this.#window(key, now);
    return (
      window.requests < (key.requestsPerMinute ?? Infinity) &&
      window.tokens < (key.tokensPerMinute ?? Infinity)
    );
  }

  /** When a key whose budget is spent may be chosen again (epoch ms). */
  availableAt(key: UpstreamKey, now: number): number {
    return this.allows(key, now) ? now : this.#window(key, now).startedAt + minuteMs;
  }

  spendRequest(key: UpstreamKey, now: number): void {
    if (key.requestsPerMinute === undefined && key.tokensPerMinute === undefined) return;
    this.#window(key, now).requests += 1;
  }

  spendTokens(key: UpstreamKey, tokens: number, now: number): void {
    if (key.tokensPerMinute === undefined) return;
    this.#window(key, now).tokens += tokens;
  }
}
