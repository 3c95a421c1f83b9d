import { randomUUID } from 'node:crypto';
import type { Account, AccountStore } from '../auth/account-store.ts';
import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStore } from '../auth/api-key-store.ts';
import { generateClientToken } from '../auth/client-token.ts';
import {
  isPermission,
  permissions,
  type Permission,
  type TokenInterface,
} from '../auth/permissions.ts';
import type { Balance, CreditLedger, LedgerEntry } from '../billing/credit-ledger.ts';
import { ledgerEntryId } from '../billing/ledger-entry-id.ts';
import { formatCredits } from '../billing/micro-credits.ts';
import type { TokenBudget } from '../billing/token-budget.ts';
import { createSignInLink, type SignInLink } from '../dashboard/create-sign-in-link.ts';
import type { DashboardSessionStore } from '../dashboard/dashboard-session-store.ts';
import type { LimitSet } from '../config/config-schema.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { AssetStore } from '../features/storage/asset-store.ts';
import type { UsageRecord, UsageStore } from '../generation/usage-store.ts';
import {
  encodeUsageCursor,
  readGroupBy,
  readRequestQuery,
  readUsageFilter,
  reportUsage,
  type UsageQueryText,
  type UsageReport,
} from './usage-reports.ts';

export interface OperatorStores {
  accounts: AccountStore;
  apiKeys: ApiKeyStore;
  ledger: CreditLedger;
  usage: UsageStore;
  assets: AssetStore;
  /** Dashboard sign-in links; absent, `createSignInLink` is refused. */
  dashboardSessions?: DashboardSessionStore;
}

export interface OperatorOptions {
  /** Where dashboard sign-in links point (src/dashboard/dashboard-base-url.ts). */
  dashboardBaseUrl?: string;
}

export interface CreateTokenInput {
  accountId: string;
  name: string;
  permissions?: string[];
  interface?: TokenInterface;
  expiresAt?: number | null;
  allowedModels?: string[] | null;
  budget?: TokenBudget | null;
  limits?: LimitSet | null;
}

export interface AccountSummary {
  account: Account;
  balance: Balance;
  entries: LedgerEntry[];
  usage: UsageRecord[];
}

/** Public view of a key: never the hash. */
export type ApiKeyView = Omit<ApiKeyRecord, 'hash'>;

export function viewApiKey(record: ApiKeyRecord): ApiKeyView {
  const { hash: _hash, ...view } = record;
  return view;
}

/**
 * The operator's use cases, shared by the CLI and the admin HTTP API so both do exactly the same
 * thing. Every credit change is a ledger entry with a reason.
 */
export class OperatorService {
  readonly #stores: OperatorStores;
  readonly #now: () => number;
  readonly #dashboardBaseUrl: string;

  constructor(stores: OperatorStores, now: () => number = Date.now, options: OperatorOptions = {}) {
    this.#stores = stores;
    this.#now = now;
    this.#dashboardBaseUrl = options.dashboardBaseUrl ?? 'http://localhost:8080';
  }

  async createAccount(input: { name: string; isAdmin?: boolean }): Promise<Account> {
    const name = input.name.trim();
    if (name === '') throw new ApiError('invalid_request', 'An account needs a name.');
    const account: Account = {
      id: `acct_${randomUUID().replaceAll('-', '')}`,
      name,
      isAdmin: input.isAdmin ?? false,
      createdAt: this.#now(),
    };
    if ((await this.#stores.accounts.findAccountByName(name)) !== undefined) {
      throw new ApiError(
        'conflict',
        `An account named "${name}" exists already; names are unique.`,
      );
    }
    try {
      await this.#stores.accounts.createAccount(account);
    } catch (error) {
      // Another creation of the same name won the race between the check and the insert.
      if ((await this.#stores.accounts.findAccountByName(name)) !== undefined) {
        throw new ApiError(
          'conflict',
          `An account named "${name}" exists already; names are unique.`,
        );
      }
      throw error;
    }
    return account;
  }

  /** An account's own storage quota in bytes; null returns it to the configured default. */
  async setStorageQuota(accountRef: string, quotaBytes: number | null): Promise<Account> {
    const account = await this.requireAccount(accountRef);
    await this.#stores.assets.setQuotaBytes(account.id, quotaBytes);
    return account;
  }

  /**
   * A one-time link signing a browser into the dashboard as the account (docs/decisions/0168):
   * the only way in, so whoever holds it acts as the account for 12 hours.
   */
  async createSignInLink(accountRef: string): Promise<SignInLink & { account: Account }> {
    const account = await this.requireAccount(accountRef);
    const sessions = this.#stores.dashboardSessions;
    if (sessions === undefined) throw new Error('This store keeps no dashboard sessions.');
    const link = await createSignInLink(sessions, {
      accountId: account.id,
      baseUrl: this.#dashboardBaseUrl,
      now: this.#now(),
    });
    return { ...link, account };
  }

  async listAccounts(): Promise<Account[]> {
    return this.#stores.accounts.listAccounts();
  }

  /** The account of that id, or else of that name: names stand wherever ids do. */
  async requireAccount(accountRef: string): Promise<Account> {
    const account =
      (await this.#stores.accounts.getAccount(accountRef)) ??
      (await this.#stores.accounts.findAccountByName(accountRef));
    if (account === undefined) throw new ApiError('not_found', `No account "${accountRef}".`);
    return account;
  }

  /** Grants (positive) or adjusts (either sign) credits; amount in micro-credits. */
  async changeCredits(input: {
    accountId: string;
    amount: number;
    reason: string;
    kind: 'grant' | 'adjustment';
    /** Only an explicit choice may take a balance below zero. */
    allowNegative?: boolean;
  }): Promise<{ entry: LedgerEntry; balance: Balance }> {
    const { id: accountId } = await this.requireAccount(input.accountId);
    if (!Number.isSafeInteger(input.amount) || input.amount === 0) {
      throw new ApiError('invalid_request', 'The amount must be a non-zero number of credits.');
    }
    if (input.kind === 'grant' && input.amount < 0) {
      throw new ApiError(
        'invalid_request',
        'A grant must be positive; use an adjustment to take credits away.',
      );
    }
    const reason = input.reason.trim();
    if (reason === '') throw new ApiError('invalid_request', 'Every credit change needs a reason.');
    const createdAt = this.#now();
    const entry: LedgerEntry = {
      id: ledgerEntryId(createdAt),
      accountId,
      amount: input.amount,
      kind: input.kind,
      reason,
      requestId: null,
      createdAt,
    };
    const refusal = await this.#stores.ledger.appendEntry(entry, {
      allowNegative: input.allowNegative === true,
    });
    if (refusal === 'below_zero') {
      throw new ApiError(
        'invalid_request',
        'This change would take the balance below zero; nothing was changed. Pass allow_negative (CLI: --allow-negative) to do it anyway.',
      );
    }
    if (refusal === 'beyond_exact_range') {
      throw new ApiError(
        'invalid_request',
        `This change would take the balance past ${formatCredits(Number.MAX_SAFE_INTEGER)} credits, beyond what is kept exactly; nothing was changed.`,
      );
    }
    return { entry, balance: await this.#stores.ledger.getBalance(accountId) };
  }

  /** Creates a client token; the token text is returned here once and never stored. */
  async createToken(input: CreateTokenInput): Promise<{ token: string; apiKey: ApiKeyView }> {
    const account = await this.requireAccount(input.accountId);
    const requested = input.permissions ?? [...permissions];
    const unknown = requested.filter((permission) => !isPermission(permission));
    if (unknown.length > 0) {
      throw new ApiError(
        'invalid_request',
        `Unknown permission(s): ${unknown.join(', ')}. Known: ${permissions.join(', ')}.`,
      );
    }
    const tokenInterface = input.interface ?? 'credits';
    if (tokenInterface === 'connected' && !account.isAdmin) {
      // docs/api.md: capabilities that use connected providers are administrator-only.
      throw new ApiError(
        'invalid_request',
        'Only administrator accounts may hold "connected" tokens.',
      );
    }
    if (
      input.expiresAt !== undefined &&
      input.expiresAt !== null &&
      input.expiresAt <= this.#now()
    ) {
      throw new ApiError('invalid_request', 'The expiry must be in the future.');
    }
    const issued = generateClientToken();
    const record: ApiKeyRecord = {
      id: `key_${randomUUID().replaceAll('-', '')}`,
      accountId: account.id,
      name: input.name.trim() || 'token',
      hash: issued.hash,
      displayPrefix: issued.displayPrefix,
      permissions: [...new Set(requested)] as Permission[],
      interface: tokenInterface,
      allowedModels:
        input.allowedModels && input.allowedModels.length > 0 ? input.allowedModels : null,
      expiresAt: input.expiresAt ?? null,
      disabledAt: null,
      createdAt: this.#now(),
      budget: input.budget ?? null,
      limits: input.limits ?? null,
    };
    if (record.budget !== null) checkBudget(record.budget);
    await this.#stores.apiKeys.insertApiKey(record);
    return { token: issued.token, apiKey: viewApiKey(record) };
  }

  async listTokens(accountRef?: string): Promise<ApiKeyView[]> {
    const accountId =
      accountRef === undefined ? undefined : (await this.requireAccount(accountRef)).id;
    return (await this.#stores.apiKeys.listApiKeys(accountId)).map(viewApiKey);
  }

  async requireToken(apiKeyId: string): Promise<ApiKeyRecord> {
    const record = await this.#stores.apiKeys.getApiKey(apiKeyId);
    if (record === undefined) throw new ApiError('not_found', `No token "${apiKeyId}".`);
    return record;
  }

  /** Renames a token or changes its limits, budget, models or expiry; the rest stays. */
  async updateToken(apiKeyId: string, changes: ApiKeyChanges): Promise<ApiKeyView> {
    await this.requireToken(apiKeyId);
    const checked: ApiKeyChanges = { ...changes };
    if (changes.name !== undefined) {
      checked.name = changes.name.trim();
      if (checked.name === '') throw new ApiError('invalid_request', 'A token needs a name.');
    }
    if (changes.expiresAt != null && changes.expiresAt <= this.#now()) {
      throw new ApiError('invalid_request', 'The expiry must be in the future.');
    }
    if (changes.allowedModels !== undefined && changes.allowedModels?.length === 0) {
      checked.allowedModels = null;
    }
    if (changes.budget != null) checkBudget(changes.budget);
    const record = await this.#stores.apiKeys.updateApiKey(apiKeyId, checked);
    if (record === undefined) throw new ApiError('not_found', `No token "${apiKeyId}".`);
    return viewApiKey(record);
  }

  /**
   * A new secret for the token, shown here once; every setting stays and the old secret stops
   * working (at once in this process; within the authentication cache's lifetime in others).
   */
  async rotateToken(apiKeyId: string): Promise<{ token: string; apiKey: ApiKeyView }> {
    await this.requireToken(apiKeyId);
    const issued = generateClientToken();
    if (
      !(await this.#stores.apiKeys.replaceApiKeySecret(apiKeyId, issued.hash, issued.displayPrefix))
    ) {
      throw new ApiError('not_found', `No token "${apiKeyId}".`);
    }
    return { token: issued.token, apiKey: viewApiKey(await this.requireToken(apiKeyId)) };
  }

  /** Removes a token for good; its usage records stay, under its id. */
  async deleteToken(apiKeyId: string): Promise<ApiKeyView> {
    const record = await this.requireToken(apiKeyId);
    if (!(await this.#stores.apiKeys.deleteApiKey(apiKeyId))) {
      throw new ApiError('not_found', `No token "${apiKeyId}".`);
    }
    return viewApiKey(record);
  }

  /** Lets a disabled token authenticate again; its secret and settings are as they were. */
  async enableToken(apiKeyId: string): Promise<ApiKeyView> {
    const record = await this.#stores.apiKeys.updateApiKey(apiKeyId, { disabledAt: null });
    if (record === undefined) throw new ApiError('not_found', `No token "${apiKeyId}".`);
    return viewApiKey(record);
  }

  async disableToken(apiKeyId: string): Promise<ApiKeyView> {
    const disabled = await this.#stores.apiKeys.disableApiKey(apiKeyId, this.#now());
    if (!disabled) throw new ApiError('not_found', `No token "${apiKeyId}".`);
    const record = await this.#stores.apiKeys.getApiKey(apiKeyId);
    if (record === undefined) throw new ApiError('not_found', `No token "${apiKeyId}".`);
    return viewApiKey(record);
  }

  /**
   * A usage report (docs/operations.md): of one account (by id or name) when `account` is given
   * or `scope` names it, of every account otherwise.
   */
  async reportUsage(
    query: UsageQueryText & { account?: string | undefined },
  ): Promise<UsageReport> {
    const filter = await this.#usageFilter(query);
    return reportUsage(this.#stores.usage, filter, readGroupBy(query.group_by));
  }

  /** One page of the request log, newest first, with the cursor of the next. */
  async listRequests(
    query: UsageQueryText & { account?: string | undefined },
  ): Promise<{ records: UsageRecord[]; nextCursor: string | null }> {
    const filter = await this.#usageFilter(query);
    const page = await this.#stores.usage.listRequests(readRequestQuery(filter, query));
    return {
      records: page.records,
      nextCursor: page.next === undefined ? null : encodeUsageCursor(page.next),
    };
  }

  async #usageFilter(query: UsageQueryText & { account?: string | undefined }) {
    const accountId =
      query.account === undefined || query.account === ''
        ? undefined
        : (await this.requireAccount(query.account)).id;
    return readUsageFilter(query, accountId === undefined ? {} : { accountId }, this.#now());
  }

  async accountBalance(accountId: string): Promise<Balance> {
    return this.#stores.ledger.getBalance(accountId);
  }

  async accountSummary(accountRef: string, limit = 20): Promise<AccountSummary> {
    const account = await this.requireAccount(accountRef);
    const [balance, entries, usage] = await Promise.all([
      this.#stores.ledger.getBalance(account.id),
      this.#stores.ledger.listEntries(account.id, limit),
      this.#stores.usage.listUsage(account.id, limit),
    ]);
    return { account, balance, entries, usage };
  }
}

function checkBudget(budget: TokenBudget): void {
  if (!Number.isSafeInteger(budget.amount) || budget.amount <= 0) {
    throw new ApiError('invalid_request', 'A budget must be a positive number of credits.');
  }
}
