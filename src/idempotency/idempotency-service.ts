import { ApiError, renderErrorBody } from '../canonical/generation-error.ts';
import { randomHex } from '../shared/random-hex.ts';
import { hashIdempotencyKey } from './hash-idempotency-key.ts';
import { refuseClientTokenAsKey } from './refuse-client-token-as-key.ts';
import type {
  HeldClaim,
  IdempotencyScope,
  IdempotencyStore,
  StoredAnswer,
} from './idempotency-store.ts';

/**
 * How long a claim outlives its process's last renewal (docs/decisions/0105): a crashed
 * process's keys are free again within this, and `retry-after` never says more.
 */
export const defaultClaimLeaseMs = 15_000;
/** A third of the lease, so a claim survives two missed beats. */
const defaultHeartbeatMs = 5_000;

/** One operation's idempotency settings; each feature that takes a key declares its own. */
export interface IdempotentOperation {
  /** Scope name: keys never cross operations. */
  name: string;
  /** How long a final answer is replayed (evaluation: 15 minutes, docs/evaluation.md). */
  windowMs: number;
  /**
   * The longest the operation can run: its process renews the claim this long at most, so a
   * request that hangs past it frees its key too. A crashed process's claim lapses far sooner,
   * one claim lease after its last heartbeat (docs/decisions/0105).
   */
  claimMs: number;
  /** The header the key arrives in, named in errors (default `Idempotency-Key`). */
  keyHeader?: string;
}

export interface IdempotentRequest {
  accountId: string;
  operation: IdempotentOperation;
  /** The client's key; stored only as its hash (hash-idempotency-key.ts). */
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
 * A refused call whose cause may be gone at the retry: a transient status, or a storage quota
 * that was full (413 like a body too large, but freed by deleting files, as 402 is by adding
 * credits).
 */
function isTransientError(error: ApiError): boolean {
  return isTransientStatus(error.status) || error.code === 'storage_quota_exceeded';
}

/**
 * Stripe-style idempotency (docs/decisions/0045): the first request claims the key and runs;
 * its final answer is stored and replayed byte for byte within the window; the same key with a
 * different request is 409 `idempotency_key_reused`; a duplicate that arrives while the first
 * still runs is 409 `idempotency_in_progress` with `retry-after`; a transient failure releases
 * the key so a retry runs. A claim lives a short lease that this process's heartbeat renews
 * while the work runs, so a crashed process's keys free within seconds (docs/decisions/0105).
 */
export class IdempotencyService {
  readonly #store: IdempotencyStore;
  readonly #now: () => number;
  readonly #claimLeaseMs: number;
  readonly #heartbeatMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #onReplay: (operation: string) => void;
  /** The claims this process holds, by claim id, each with the time its renewals stop. */
  readonly #held = new Map<string, HeldClaim & { renewUntil: number }>();
  #heartbeat: NodeJS.Timeout | undefined;
  #beating = false;

  constructor(dependencies: {
    store: IdempotencyStore;
    now(): number;
    claimLeaseMs?: number;
    heartbeatMs?: number;
    onError?(error: unknown): void;
    /** Told the operation's name each time a stored answer is replayed (its metric). */
    onReplay?(operation: string): void;
  }) {
    this.#store = dependencies.store;
    this.#now = dependencies.now;
    this.#claimLeaseMs = dependencies.claimLeaseMs ?? defaultClaimLeaseMs;
    this.#heartbeatMs = dependencies.heartbeatMs ?? defaultHeartbeatMs;
    this.#onError = dependencies.onError ?? (() => {});
    this.#onReplay = dependencies.onReplay ?? (() => {});
  }

  async run(
    request: IdempotentRequest,
    work: () => Promise<StoredAnswer>,
  ): Promise<IdempotentAnswer> {
    const { operation } = request;
    const keyHeader = operation.keyHeader ?? 'Idempotency-Key';
    refuseClientTokenAsKey(request.key, keyHeader);
    const scope: IdempotencyScope = {
      accountId: request.accountId,
      operation: operation.name,
      key: hashIdempotencyKey(request.key),
    };
    const claimId = randomHex(16);
    const now = this.#now();
    const outcome = await this.#store.claim(scope, {
      fingerprint: request.fingerprint,
      claimId,
      now,
      claimExpiresAt: now + this.#claimLeaseMs,
    });
    if (outcome.kind !== 'claimed' && outcome.fingerprint !== request.fingerprint) {
      // docs/decisions/0045: a changed request under a reused key.
      throw new ApiError(
        'idempotency_key_reused',
        `The ${keyHeader} "${request.key}" was already used with a different request; send a new key for a new request.`,
      );
    }
    if (outcome.kind === 'completed') {
      this.#onReplay(operation.name);
      return { answer: outcome.answer, replayed: true };
    }
    if (outcome.kind === 'in_progress') {
      throw new ApiError('idempotency_in_progress', undefined, {
        retryAfter: this.#retryAfter(outcome.claimExpiresAt - now),
      });
    }

    this.#hold({ scope, claimId, renewUntil: now + operation.claimMs });
    try {
      let answer: StoredAnswer;
      try {
        answer = await work();
      } catch (error) {
        if (!(error instanceof ApiError) || isTransientError(error)) {
          await this.#store.release(scope, claimId);
          throw error;
        }
        answer = renderStoredError(error);
      }
      if (isTransientStatus(answer.status)) {
        await this.#store.release(scope, claimId);
      } else {
        // False means the claim lapsed and was taken over: this client still gets its answer;
        // the key belongs to the newer request.
        await this.#store.complete(scope, claimId, answer, this.#now() + operation.windowMs);
      }
      return { answer, replayed: false };
    } finally {
      this.#unhold(claimId);
    }
  }

  /**
   * Whole seconds a duplicate should wait (docs/decisions/0105). A holder that renewed its claim
   * within the last beat is alive and may answer any moment: 1. One that missed a beat is
   * probably gone, and its claim lapses in what remains of the lease: that, at most the lease.
   */
  #retryAfter(remainingMs: number): number {
    const sinceRenewal = this.#claimLeaseMs - remainingMs;
    if (sinceRenewal <= this.#heartbeatMs + 1_000) return 1;
    return Math.max(1, Math.ceil(remainingMs / 1000));
  }

  /** Starts the heartbeat with the first claim held; it never keeps the process alive. */
  #hold(claim: HeldClaim & { renewUntil: number }): void {
    this.#held.set(claim.claimId, claim);
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = setInterval(() => void this.#renew(), this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  #unhold(claimId: string): void {
    this.#held.delete(claimId);
    if (this.#held.size > 0 || this.#heartbeat === undefined) return;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  /** One renewal of every claim held here; a beat still running when the next is due is skipped. */
  async #renew(): Promise<void> {
    if (this.#beating) return;
    this.#beating = true;
    try {
      const now = this.#now();
      const claims: HeldClaim[] = [];
      for (const claim of this.#held.values()) {
        if (claim.renewUntil > now) claims.push({ scope: claim.scope, claimId: claim.claimId });
      }
      if (claims.length > 0) await this.#store.renew(claims, now, now + this.#claimLeaseMs);
    } catch (error) {
      // Retried at the next beat; a claim survives two missed beats.
      this.#onError(error);
    } finally {
      this.#beating = false;
    }
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
