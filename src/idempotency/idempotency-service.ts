import { ApiError, renderErrorBody } from '../canonical/generation-error.ts';
import { randomHex } from '../shared/random-hex.ts';
import type { IdempotencyScope, IdempotencyStore, StoredAnswer } from './idempotency-store.ts';

/** One operation's idempotency settings; each feature that takes a key declares its own. */
export interface IdempotentOperation {
  /** Scope name: keys never cross operations. */
  name: string;
  /** How long a final answer is replayed (evaluation: 15 minutes, docs/evaluation.md). */
  windowMs: number;
  /**
   * How long a claim holds before it counts as abandoned (a crashed process): longer than the
   * operation can run, or a slow first request could be run a second time.
   */
  claimMs: number;
  /** The header the key arrives in, named in errors (default `Idempotency-Key`). */
  keyHeader?: string;
}

export interface IdempotentRequest {
  accountId: string;
  operation: IdempotentOperation;
  key: string;
  /** fingerprint-request.ts */
  fingerprint: string;
}

export interface IdempotentAnswer {
  answer: StoredAnswer;
  /** True when the answer is a stored one (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

/**
 * Answers that are not final for their key: the same request may succeed when retried, because
 * the failure was the gateway's or the upstream's (5xx), or depends on state that changes
 * (credentials, balance, rate limits, a concurrent request). docs/decisions/0045.
 */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || [401, 402, 408, 409, 425, 429].includes(status);
}

/**
 * Stripe-style idempotency (docs/decisions/0045): the first request claims the key and runs;
 * its final answer is stored and replayed byte for byte within the window; the same key with a
 * different request is 409 `idempotency_key_reused`; a duplicate that arrives while the first
 * still runs is 409 `idempotency_in_progress` with `retry-after`; a transient failure releases
 * the key so a retry runs.
 */
export class IdempotencyService {
  readonly #store: IdempotencyStore;
  readonly #now: () => number;

  constructor(dependencies: { store: IdempotencyStore; now(): number }) {
    this.#store = dependencies.store;
    this.#now = dependencies.now;
  }

  async run(
    request: IdempotentRequest,
    work: () => Promise<StoredAnswer>,
  ): Promise<IdempotentAnswer> {
    const { operation } = request;
    const scope: IdempotencyScope = {
      accountId: request.accountId,
      operation: operation.name,
      key: request.key,
    };
    const claimId = randomHex(16);
    const now = this.#now();
    const outcome = await this.#store.claim(scope, {
      fingerprint: request.fingerprint,
      claimId,
      now,
      claimExpiresAt: now + operation.claimMs,
    });
    if (outcome.kind !== 'claimed' && outcome.fingerprint !== request.fingerprint) {
      // docs/decisions/0045: a changed request under a reused key.
      throw new ApiError(
        'idempotency_key_reused',
        `The ${operation.keyHeader ?? 'Idempotency-Key'} "${request.key}" was already used with a different request; send a new key for a new request.`,
      );
    }
    if (outcome.kind === 'completed') return { answer: outcome.answer, replayed: true };
    if (outcome.kind === 'in_progress') {
      throw new ApiError('idempotency_in_progress', undefined, { retryAfter: 1 });
    }

    let answer: StoredAnswer;
    try {
      answer = await work();
    } catch (error) {
      if (!(error instanceof ApiError) || isTransientStatus(error.status)) {
        await this.#store.release(scope, claimId);
        throw error;
      }
      answer = renderStoredError(error);
    }
    if (isTransientStatus(answer.status)) {
      await this.#store.release(scope, claimId);
    } else {
      // False means the claim outlived `claimMs` and was taken over: this client still gets its
      // answer; the key belongs to the newer request.
      await this.#store.complete(scope, claimId, answer, this.#now() + operation.windowMs);
    }
    return { answer, replayed: false };
  }
}

/** A final client error, kept as the shape A body the client got (docs/api.md). */
function renderStoredError(error: ApiError): StoredAnswer {
  return {
    status: error.status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(renderErrorBody(error.toGenerationError(), 'A')),
  };
}
