import { Readable } from 'node:stream';

/**
 * The byte stream of a streamed answer. Frames are produced one at a time, often several from
 * one upstream read; writing each on its own costs a socket write (a system call) apiece, which
 * the benchmark profile showed as the largest single cost of a streamed request. This stream
 * gathers every frame produced within one turn of the event loop and hands them on as one
 * chunk, so the client receives them as soon as before, in fewer writes. Backpressure holds
 * the producer; destroying the stream (the client went away) returns the producer, so its
 * `finally` (settling the bill) runs.
 */
export class CoalescedEventStream extends Readable {
  readonly #frames: AsyncIterator<string>;
  #batch = '';
  #flushScheduled = false;
  #pumping = false;
  #wanted = false;
  #done = false;

  constructor(frames: AsyncIterator<string>) {
    super();
    this.#frames = frames;
  }

  override _read(): void {
    this.#wanted = true;
    if (!this.#pumping) void this.#pump();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#done = true;
    const returned = this.#frames.return?.();
    if (returned === undefined) callback(error);
    else
      returned.then(
        () => callback(error),
        (failure: Error) => callback(error ?? failure),
      );
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      while (this.#wanted && !this.#done) {
        const next = await this.#frames.next();
        if (this.destroyed) return;
        if (next.done === true) {
          this.#done = true;
          this.#flush();
          this.push(null);
          return;
        }
        this.#batch += next.value;
        if (!this.#flushScheduled) {
          this.#flushScheduled = true;
          setImmediate(() => this.#flush());
        }
      }
    } catch (error) {
      this.destroy(error as Error);
    } finally {
      this.#pumping = false;
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#batch === '' || this.destroyed) return;
    const batch = this.#batch;
    this.#batch = '';
    // false: the consumer is full; the pump stops after its current frame until _read.
    this.#wanted = this.push(batch);
  }
}
