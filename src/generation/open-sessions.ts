/**
 * The billing sessions of this process that have placed a hold and not yet settled, so that a
 * closing gateway can wait for the settlements of the calls it cut before it closes the store
 * (docs/decisions/0099).
 */
export class OpenSessions {
  #count = 0;
  #waiting: (() => void)[] = [];

  opened(): void {
    this.#count += 1;
  }

  ended(): void {
    this.#count -= 1;
    if (this.#count === 0) for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /** Resolves once no session is open. */
  allEnded(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}
