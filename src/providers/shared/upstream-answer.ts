import type { IncomingHttpHeaders } from 'node:http';

import type { Dispatcher } from 'undici';

import type { AbortSource } from '../../shared/abort-handle.ts';
import { textOfChunks } from './read-body-at-most.ts';
import { errors, parseHeaders } from './undici-pool.ts';

/** An upstream answer: its status and headers, and its body as it arrives. */
export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

/** Bytes the body keeps unread before it asks undici to stop reading the socket. */
const HIGH_WATER_BYTES = 64 * 1024;

const ended: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * An upstream answer's body: the chunks undici hands over, read once, by iteration or `text()`.
 *
 * undici's `request()` wraps every answer in a Readable stream (its listeners, its `nextTick`
 * hops, the async-hooks scope of its callbacks); the benchmark profile showed that machinery on
 * every generation request. This is a queue of chunks with one waiting reader, which is all the
 * gateway's readers need. Backpressure as a stream has it: past 64 KiB unread, undici pauses the
 * socket until the reader catches up. Leaving the iteration early, or `destroy()`, aborts the
 * upstream request, as destroying undici's body does.
 */
export class UpstreamBody implements AsyncIterable<Buffer> {
  readonly #chunks: Buffer[] = [];
  #head = 0;
  #buffered = 0;
  #done = false;
  #error: Error | undefined;
  #waiting:
    | { resolve: (result: IteratorResult<Buffer>) => void; reject: (error: Error) => void }
    | undefined;
  /** A `text()` reader waiting for the end: the chunks gather until then, never paused. */
  #whole: { resolve: (text: string) => void; reject: (error: Error) => void } | undefined;
  #paused = false;
  readonly #resume: () => void;
  readonly #abort: (error: Error) => void;

  constructor(resume: () => void, abort: (error: Error) => void) {
    this.#resume = resume;
    this.#abort = abort;
  }

  /** From undici: a chunk. False asks it to pause until the reader has taken what it holds. */
  push(chunk: Buffer): boolean {
    if (this.#done) return true;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting.resolve({ done: false, value: chunk });
      return true;
    }
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#whole !== undefined || this.#buffered < HIGH_WATER_BYTES) return true;
    this.#paused = true;
    return false;
  }

  /** From undici: the body is complete. */
  end(): void {
    if (this.#done) return;
    this.#done = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve(ended);
    const whole = this.#whole;
    this.#whole = undefined;
    whole?.resolve(this.#takeText());
  }

  /** From undici: the body broke (a cut connection, an idle timeout, an abort). */
  fail(error: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.#error = error;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
    const whole = this.#whole;
    this.#whole = undefined;
    whole?.reject(error);
  }

  /** Stops reading: the upstream request is aborted unless its body was complete. */
  destroy(): void {
    if (this.#done) return;
    this.#done = true;
    this.#chunks.length = 0;
    const error = new errors.RequestAbortedError();
    const whole = this.#whole;
    this.#whole = undefined;
    whole?.reject(error);
    this.#abort(error);
  }

  #next(): Promise<IteratorResult<Buffer>> {
    if (this.#head < this.#chunks.length) {
      const chunk = this.#chunks[this.#head] as Buffer;
      this.#head += 1;
      this.#buffered -= chunk.length;
      if (this.#head === this.#chunks.length) {
        this.#chunks.length = 0;
        this.#head = 0;
      }
      if (this.#paused && this.#buffered < HIGH_WATER_BYTES && !this.#done) {
        this.#paused = false;
        this.#resume();
      }
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#done) return Promise.resolve(ended);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return {
      next: () => this.#next(),
      return: () => {
        this.destroy();
        return Promise.resolve(ended);
      },
    };
  }

  /**
   * The whole body as UTF-8 text (what is left of it, after any chunks an iteration took): one
   * promise for the whole body rather than one per chunk, as the JSON answers of the request
   * path are read.
   */
  text(): Promise<string> {
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#done) return Promise.resolve(this.#takeText());
    return new Promise((resolve, reject) => {
      this.#whole = { resolve, reject };
      if (this.#paused) {
        this.#paused = false;
        this.#resume();
      }
    });
  }

  #takeText(): string {
    const chunks = this.#head === 0 ? this.#chunks : this.#chunks.slice(this.#head);
    const text = textOfChunks(chunks, this.#buffered);
    this.#chunks.length = 0;
    this.#head = 0;
    this.#buffered = 0;
    return text;
  }
}

/**
 * undici's handler for one request (its `dispatch` interface): resolves with the answer once its
 * headers are in, then feeds the body. A failure before the headers rejects; after them it breaks
 * the body. The abort source stops the request at any point.
 */
export class UpstreamAnswerHandler implements Dispatcher.DispatchHandler {
  readonly #resolve: (response: UpstreamResponse) => void;
  readonly #reject: (error: Error) => void;
  readonly #signal: AbortSource;
  #abort: ((error: Error) => void) | undefined;
  #body: UpstreamBody | undefined;
  #settled = false;
  readonly #onAbort = (): void => {
    const error = new errors.RequestAbortedError();
    if (this.#body !== undefined) this.#body.fail(error);
    this.#abort?.(error);
  };

  constructor(
    signal: AbortSource,
    resolve: (response: UpstreamResponse) => void,
    reject: (error: Error) => void,
  ) {
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort;
    if (this.#signal.aborted) abort(new errors.RequestAbortedError());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // An informational answer (100 Continue) is not the answer.
    if (statusCode < 200) return true;
    const abort = (error: Error): void => this.#abort?.(error);
    const body = new UpstreamBody(resume, abort);
    this.#body = body;
    this.#settled = true;
    this.#resolve({ statusCode, headers: parseHeaders(rawHeaders), body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return (this.#body as UpstreamBody).push(chunk);
  }

  onComplete(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#body?.end();
  }

  onError(error: Error): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    if (!this.#settled) {
      this.#settled = true;
      this.#reject(error);
      return;
    }
    this.#body?.fail(error);
  }
}
