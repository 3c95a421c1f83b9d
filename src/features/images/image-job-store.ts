import type { ImageJobParameters, ImageJobState } from './image-types.ts';

/** Why a job failed, as its poll shows it and its create call answered. */
export interface ImageJobError {
  /** An error catalogue code (src/canonical/error-catalogue.ts). */
  code: string;
  message: string;
  status: number;
  /** Seconds the upstream (or an outage) asked to wait: the create call's `retry-after`. */
  retryAfter?: number;
}

/** A job as it is created (state `queued`). */
export interface NewImageJob {
  id: string;
  accountId: string;
  apiKeyId: string;
  model: string;
  /** The provider whose workers run the job (its first deployment's): per-provider concurrency. */
  queue: string;
  parameters: ImageJobParameters;
  inputAssetIds: string[];
  holdId: string | null;
  /** Micro-credits per delivered image. */
  pricePerImage: number;
  createdAt: number;
  /** After this the job fails and its hold is released. */
  deadlineAt: number;
  /**
   * The hashed Idempotency-Key of the create call that made the job, and that call's
   * fingerprint: a retry after a crash answers this job rather than make a second one
   * (docs/decisions/0107). Null once the key was given back (the job failed within the call).
   */
  idempotencyKey: string | null;
  requestFingerprint: string | null;
}

export interface ImageJob extends NewImageJob {
  state: ImageJobState;
  /** The deployment (index into the model's deployments) that accepted the request. */
  deploymentIndex: number | null;
  /** A job-style upstream's id and polling URL, stored before the first poll. */
  upstreamJobId: string | null;
  pollUrl: string | null;
  /** The stored result files, recorded before they are charged. */
  resultAssetIds: string[] | null;
  /** Micro-credits charged (a succeeded job). */
  charged: number | null;
  error: ImageJobError | null;
  /** How many times a worker claimed the job. */
  attempts: number;
  finishedAt: number | null;
}

export interface ClaimImageJobs {
  queue: string;
  /** A random id of the claiming worker pool. */
  owner: string;
  now: number;
  leaseUntil: number;
  limit: number;
  /** Claims only this job (the process that created it runs it at once when it has room). */
  jobId?: string;
}

export type ImageJobOutcome =
  { state: 'succeeded'; charged: number } | { state: 'failed'; error: ImageJobError };

/**
 * Durable image jobs (docs/decisions/0070): queued → running → succeeded | failed. A running job
 * belongs to one worker pool while its lease lasts; every step a worker writes is conditional on
 * still owning it, so a job taken over after a crash is never advanced by two workers at once.
 */
export interface ImageJobStore {
  createJob(job: NewImageJob): Promise<void>;
  /** The account's job; another account's id is as unknown as a missing one. */
  getJob(accountId: string, id: string): Promise<ImageJob | undefined>;
  /**
   * The account's jobs, newest first, `limit` of them after the job `after` (an id of the
   * account's; an unknown one gives an empty page), and whether more follow.
   */
  listJobs(
    accountId: string,
    page: { after?: string; limit: number },
  ): Promise<{ jobs: ImageJob[]; hasMore: boolean }>;
  /**
   * Claims up to `limit` jobs of the queue that are queued, or running with a lapsed lease (their
   * worker crashed or stopped), oldest first; other processes' claims are skipped, never waited for.
   */
  claimJobs(claim: ClaimImageJobs): Promise<ImageJob[]>;
  /** The newest job of the account made under this hashed key since `createdAfter`. */
  findJobByKey(
    accountId: string,
    idempotencyKey: string,
    createdAfter: number,
  ): Promise<ImageJob | undefined>;
  /** Unlinks the job from its key, which was given back for a new request. */
  forgetKey(accountId: string, id: string): Promise<void>;
  renewLease(id: string, owner: string, leaseUntil: number): Promise<boolean>;
  recordUpstreamJob(
    id: string,
    owner: string,
    upstream: { deploymentIndex: number; upstreamJobId: string | null; pollUrl: string | null },
  ): Promise<boolean>;
  recordResults(id: string, owner: string, resultAssetIds: string[]): Promise<boolean>;
  finishJob(id: string, owner: string, outcome: ImageJobOutcome, now: number): Promise<boolean>;
  /** Gives up the leases of this owner's running jobs (a graceful stop): others resume them. */
  releaseLeases(owner: string): Promise<number>;
}
