/**
 * The bytes of request bodies the gateway holds while they arrive, across all connections
 * (docs/operations.md): a reservation that does not fit is refused instead of growing the heap
 * until the process falls over. One instance per app.
 */
export class BodyByteBudget {
  readonly limitBytes: number;
  #reservedBytes = 0;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  get reservedBytes(): number {
    return this.#reservedBytes;
  }

  /** Reserves `bytes` when they fit; false (and nothing reserved) when they do not. */
  tryReserve(bytes: number): boolean {
    if (this.#reservedBytes + bytes > this.limitBytes) return false;
    this.#reservedBytes += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#reservedBytes = Math.max(0, this.#reservedBytes - bytes);
  }
}
