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
    if (token === undefined || token === '') throw new ApiError('missing_token');
    const shape = checkClientTokenShape(token);
    if (shape === 'foreign') {
      throw new ApiError(
        'malformed_token',
        `Unrecognised token format. This gateway only accepts Switchyard client tokens, which start with "${clientTokenPrefix}"; provider keys (such as "sk-…") are not accepted.`,
      );
    }
    if (shape === 'malformed') throw new ApiError('malformed_token');
    const principal = await this.#lookup(hashClientToken(token), now);
    const { apiKey } = principal;
    if (apiKey.disabledAt !== null) throw new ApiError('disabled_token');
    if (apiKey.expiresAt !== null && apiKey.expiresAt <= now) throw new ApiError('expired_token');
    if (apiKey.interface !== requirement.interface) {
      throw new ApiError(
        'wrong_interface',
        `This token is bound to the "${apiKey.interface}" interface; this route belongs to the "${requirement.interface}" interface.`,
      );
    }
    if (requirement.permission !== null && !apiKey.permissions.includes(requirement.permission)) {
      throw new ApiError(
        'permission_denied',
        `This token lacks the "${requirement.permission}" permission.`,
      );
    }
    return principal;
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
