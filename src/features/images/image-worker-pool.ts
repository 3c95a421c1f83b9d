import { EventEmitter } from 'node:events';

import { randomHex } from '../../shared/random-hex.ts';
import type { ImageJob, ImageJobStore } from './image-job-store.ts';

export interface ImageWorkerPoolOptions {
  jobs: ImageJobStore;
  /** Each queue (an image provider id) and how many of its jobs run here at once. */
  queues: Map<string, number>;
  /**
   * Runs a claimed job. `signal` cuts it at once (its upstream call too); `handOver` asks it to
   * leave at its next point where leaving costs nothing (before a submit, between polls).
   */
  run(job: ImageJob, owner: string, signal: AbortSignal, handOver: AbortSignal): Promise<void>;
  leaseMs: number;
  /**
   * How long a stop lets calls in flight finish (`server.shutdownGraceMs`): the same grace the
   * HTTP requests get (docs/decisions/0108).
   */
  stopGraceMs: number;
  /** Counts the stop's drain as open work, so the stores close only after it (0099). */
  draining?: { opened(): void; ended(): void };
  /** How often queues are looked at for jobs other processes queued or abandoned. */
  scanIntervalMs: number;
  now(): number;
  onError(error: unknown, message: string): void;
}

interface RunningJob {
  queue: string;
  controller: AbortController;
  handOver: AbortController;
  done: Promise<void>;
}

/**
 * The in-process workers of the image job queue (docs/decisions/0070). Per queue at most its
 * concurrency of jobs run here; the process that created a job starts it at once when it has
 * room, and every process scans the queues for jobs left queued or abandoned by a crashed
 * worker. Leases are renewed while a job runs (also while a stop drains); a job whose lease is
 * lost is aborted here.
 */
export class ImageWorkerPool {
  readonly owner = `workers_${randomHex(8)}`;
  readonly #options: ImageWorkerPoolOptions;
  readonly #running = new Map<string, RunningJob>();
  readonly #chains = new Map<string, Promise<void>>();
  readonly #finished = new EventEmitter();
  #timers: NodeJS.Timeout[] = [];
  #stopping = false;

  constructor(options: ImageWorkerPoolOptions) {
    this.#options = options;
    this.#finished.setMaxListeners(0);
  }

  start(): void {
    const { scanIntervalMs, leaseMs } = this.#options;
    const scan = setInterval(() => {
      for (const queue of this.#options.queues.keys()) this.kick(queue);
    }, scanIntervalMs);
    const renew = setInterval(() => void this.#renewLeases(), Math.max(100, leaseMs / 3));
    scan.unref();
    renew.unref();
    this.#timers = [scan, renew];
    for (const queue of this.#options.queues.keys()) this.kick(queue);
  }

  /** Looks for work on a queue now (a job was just created: `jobId` is tried first). */
  kick(queue: string, jobId?: string): void {
    if (this.#stopping || !this.#options.queues.has(queue)) return;
    const previous = this.#chains.get(queue) ?? Promise.resolve();
    const next = previous.then(() => this.#claim(queue, jobId));
    this.#chains.set(queue, next);
  }

  /** Resolves when this process sees the job finish, or after `timeoutMs`. */
  waitForFinish(jobId: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#finished.off(jobId, done);
        // While stopping, a job nobody waits for any more hands over at its next free point.
        if (this.#stopping && this.#finished.listenerCount(jobId) === 0) {
          this.#running.get(jobId)?.handOver.abort();
        }
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#finished.once(jobId, done);
    });
  }

  /**
   * Stops claiming and starts draining (docs/decisions/0108); returns at once, so the HTTP server
   * can close meanwhile, and counts the drain in `draining`. A job nobody here waits for hands
   * over at its next free point (a stored upstream job is polled on by the next process); a job
   * in an upstream call, storing its images or settling, or one a create call here waits for,
   * runs on. Past `stopGraceMs` the rest are cut as HTTP calls are. Leases still held then are
   * given up, so the next process resumes those jobs at once instead of after the lease.
   */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const [scan] = this.#timers;
    if (scan !== undefined) clearInterval(scan);
    const draining = this.#options.draining;
    draining?.opened();
    void this.#drain()
      .catch((error: unknown) => this.#options.onError(error, 'stopping the image workers failed'))
      .finally(() => draining?.ended());
  }

  async #drain(): Promise<void> {
    await Promise.all(this.#chains.values());
    for (const [id, running] of this.#running) {
      if (this.#finished.listenerCount(id) === 0) running.handOver.abort();
    }
    const grace = setTimeout(() => {
      for (const running of this.#running.values()) running.controller.abort();
    }, this.#options.stopGraceMs);
    grace.unref();
    try {
      await Promise.all([...this.#running.values()].map((running) => running.done));
    } finally {
      clearTimeout(grace);
      for (const timer of this.#timers) clearInterval(timer);
    }
    await this.#options.jobs.releaseLeases(this.owner);
  }

  async #claim(queue: string, jobId: string | undefined): Promise<void> {
    const concurrency = this.#options.queues.get(queue) ?? 0;
    const room = concurrency - this.#active(queue);
    if (this.#stopping || room <= 0) return;
    const now = this.#options.now();
    let claimed: ImageJob[];
    try {
      claimed = await this.#options.jobs.claimJobs({
        queue,
        owner: this.owner,
        now,
        leaseUntil: now + this.#options.leaseMs,
        limit: jobId === undefined ? room : 1,
        ...(jobId === undefined ? {} : { jobId }),
      });
    } catch (error) {
      this.#options.onError(error, 'claiming image jobs failed');
      return;
    }
    for (const job of claimed) this.#launch(queue, job);
  }

  #launch(queue: string, job: ImageJob): void {
    const controller = new AbortController();
    const handOver = new AbortController();
    const done = this.#options
      .run(job, this.owner, controller.signal, handOver.signal)
      .catch((error: unknown) => this.#options.onError(error, `image job ${job.id} failed`))
      .finally(() => {
        this.#running.delete(job.id);
        this.#finished.emit(job.id);
        this.kick(queue);
      });
    this.#running.set(job.id, { queue, controller, handOver, done });
  }

  #active(queue: string): number {
    let count = 0;
    for (const running of this.#running.values()) if (running.queue === queue) count += 1;
    return count;
  }

  async #renewLeases(): Promise<void> {
    const leaseUntil = this.#options.now() + this.#options.leaseMs;
    for (const [id, running] of this.#running) {
      try {
        const kept = await this.#options.jobs.renewLease(id, this.owner, leaseUntil);
        if (!kept) running.controller.abort();
      } catch (error) {
        this.#options.onError(error, `renewing the lease of image job ${id} failed`);
      }
    }
  }
}
