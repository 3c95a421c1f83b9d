/**
 * The idempotency port (docs/architecture.md): one entry per (account, operation, key), shared by
 * every feature that takes an idempotency key (evaluation, images, transcription, search, MCP).
 * Stripe's semantics are the anchor: the first request claims the key atomically, its final
 * answer is kept for a window and replayed byte for byte, and a transient failure gives the key
 * back so a retry can run.
 */
export interface IdempotencyScope {
  accountId: string;
  /** The operation name (`evaluation`, `image_generation`, ...): keys never cross operations. */
  operation: string;
  /**
   * The key as stored: the SHA-256 of the client's key (hash-idempotency-key.ts), never the key
   * itself, so a store dump holds nothing a client sent as a secret.
   */
  key: string;
}

/** A final answer, kept as the bytes the client got. */
export interface StoredAnswer {
  status: number;
  /** Only the headers a replay must repeat (content type, feature headers); lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export interface ClaimRequest {
  /** What makes two requests the same (fingerprint-request.ts). */
  fingerprint: string;
  /** A random id naming this claim; completing or releasing needs it. */
  claimId: string;
  now: number;
  /**
   * Until when the claim holds unless its process renews it (`renew`, every few seconds while
   * the request runs). A claim not renewed in time belongs to a process that is gone, and the
   * next request with the key takes it over.
   */
  claimExpiresAt: number;
}

/** A claim this process holds, as its heartbeat renews it. */
export interface HeldClaim {
  scope: IdempotencyScope;
  claimId: string;
}

export type ClaimOutcome =
  /** This request owns the key and must run, then complete or release it. */
  | { kind: 'claimed' }
  /** Another request holds the key and has not finished. */
  | { kind: 'in_progress'; fingerprint: string; claimExpiresAt: number }
  /** A final answer inside its window. */
  | { kind: 'completed'; fingerprint: string; answer: StoredAnswer };

export interface IdempotencyStore {
  /**
   * Atomically: claims a key nobody holds (or whose entry has expired), else reports who holds
   * it. Two concurrent claims of one key never both get `claimed`, on one process or many.
   */
  claim(scope: IdempotencyScope, request: ClaimRequest): Promise<ClaimOutcome>;
  /**
   * Stores the final answer of a claim and keeps it until `expiresAt`. False (and nothing
   * changes) when the claim is no longer held (it expired and was taken over).
   */
  complete(
    scope: IdempotencyScope,
    claimId: string,
    answer: StoredAnswer,
    expiresAt: number,
  ): Promise<boolean>;
  /**
   * Moves the end of these pending claims to `expiresAt` (the heartbeat of the process that holds
   * them). A claim that already expired at `now`, or changed hands, is not revived: its key may
   * be someone else's by then.
   */
  renew(claims: HeldClaim[], now: number, expiresAt: number): Promise<void>;
  /** Gives the key back (a transient failure): the next request runs. Only the holder can. */
  release(scope: IdempotencyScope, claimId: string): Promise<void>;
  /** Deletes at most `limit` entries that expired at or before `now`; returns how many. */
  deleteExpired(now: number, limit: number): Promise<number>;
}
