import { ApiError } from '../canonical/generation-error.ts';
import type { Account, AccountStore } from './account-store.ts';
import type { ApiKeyRecord, ApiKeyStore } from './api-key-store.ts';
import {
  checkClientTokenShape,
  clientTokenPrefix,
  hashClientToken,
  hashesEqual,
} from './client-token.ts';
import type { Permission, TokenInterface } from './permissions.ts';

export interface Principal {
  apiKey: ApiKeyRecord;
  account: Account;
}

export interface RouteRequirement {
  /** null: any valid token of the interface (docs/decisions/0051, the storage routes). */
  permission: Permission | null;
  interface: TokenInterface;
}

interface CacheEntry {
  principal: Principal;
  fetchedAt: number;
}

export interface AuthenticatorOptions {
  /** How long a looked-up token is trusted without a database read (disable takes this long). */
  cacheTtlMs?: number;
  cacheSize?: number;
}

/**
 * Resolves a client token to its key record and account, then checks the route's interface and
 * permission (docs/api.md). Order of checks: shape (no I/O), lookup, disabled, expired, interface
 * (400), permission (401).
 */
export class Authenticator {
  readonly #apiKeys: ApiKeyStore;
  readonly #accounts: AccountStore;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #cacheTtlMs: number;
  readonly #cacheSize: number;

  constructor(apiKeys: ApiKeyStore, accounts: AccountStore, options: AuthenticatorOptions = {}) {
    this.#apiKeys = apiKeys;
    this.#accounts = accounts;
    this.#cacheTtlMs = options.cacheTtlMs ?? 10_000;
    this.#cacheSize = options.cacheSize ?? 10_000;
  }

  async authenticate(
    token: string | undefined,
    requirement: RouteRequirement,
    now: number,
  ): Promise<Principal> {
    const principal = await this.#lookup(hashOf(token), now);
    const refusal = refuse(principal, requirement, now);
    if (refusal !== undefined) throw refusal;
    return principal;
  }

  /**
   * What `authenticate` resolves to when the token's lookup is cached and admits it; undefined
   * for everything else (not cached, expired from the cache, refused), which `authenticate` then
   * decides. Lets a request whose token was seen moments ago pass without a turn of the event
   * loop.
   */
  admitCached(
    token: string | undefined,
    requirement: RouteRequirement,
    now: number,
  ): Principal | undefined {
    // Only a token that was found is cached, so a cached one has passed the shape check.
    if (token === undefined) return undefined;
    const cached = this.#cache.get(hashClientToken(token));
    if (cached === undefined || now - cached.fetchedAt >= this.#cacheTtlMs) return undefined;
    return refuse(cached.principal, requirement, now) === undefined ? cached.principal : undefined;
  }

  /** Forgets cached lookups so a disable done in this process takes effect at once. */
  forget(apiKeyId?: string): void {
    if (apiKeyId === undefined) {
      this.#cache.clear();
      return;
    }
    for (const [hash, entry] of this.#cache) {
      if (entry.principal.apiKey.id === apiKeyId) this.#cache.delete(hash);
    }
  }

  async #lookup(hash: string, now: number): Promise<Principal> {
    const cached = this.#cache.get(hash);
    if (cached !== undefined && now - cached.fetchedAt < this.#cacheTtlMs) return cached.principal;
    const apiKey = await this.#apiKeys.findApiKeyByHash(hash);
    // The index lookup finds the row; the constant-time comparison is what decides.
    if (apiKey === undefined || !hashesEqual(apiKey.hash, hash))
      throw new ApiError('invalid_token');
    const account = await this.#accounts.getAccount(apiKey.accountId);
    if (account === undefined) throw new ApiError('invalid_token');
    const principal = { apiKey, account };
    if (this.#cache.size >= this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    this.#cache.set(hash, { principal, fetchedAt: now });
    return principal;
  }
}

/** The token's hash, or the error its absence or shape earns (docs/api.md: shape before lookup). */
function hashOf(token: string | undefined): string {
  if (token === undefined || token === '') throw new ApiError('missing_token');
  const shape = checkClientTokenShape(token);
  if (shape === 'foreign') {
    throw new ApiError(
      'malformed_token',
      `Unrecognised token format. This gateway only accepts Switchyard client tokens, which start with "${clientTokenPrefix}"; provider keys (such as "sk-…") are not accepted.`,
    );
  }
  if (shape === 'malformed') throw new ApiError('malformed_token');
  return hashClientToken(token);
}

/** Why a found token may not use the route, in the order of docs/api.md; undefined admits it. */
function refuse(
  principal: Principal,
  requirement: RouteRequirement,
  now: number,
): ApiError | undefined {
  const { apiKey } = principal;
  if (apiKey.disabledAt !== null) return new ApiError('disabled_token');
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= now) return new ApiError('expired_token');
  if (apiKey.interface !== requirement.interface) {
    return new ApiError(
      'wrong_interface',
      `This token is bound to the "${apiKey.interface}" interface; this route belongs to the "${requirement.interface}" interface.`,
    );
  }
  if (requirement.permission !== null && !apiKey.permissions.includes(requirement.permission)) {
    return new ApiError(
      'permission_denied',
      `This token lacks the "${requirement.permission}" permission.`,
    );
  }
  return undefined;
}

/**
 * The token from `x-api-key` or `Authorization: Bearer` (docs/api.md; the message-style SDK 1.x
 * sends Bearer, docs/clients.md). `x-api-key` wins when both are sent.
 */
export function readCredential(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return apiKey.trim();
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return undefined;
}
