import type { Account } from '../auth/account-store.ts';
import type { Balance, LedgerEntry } from '../billing/credit-ledger.ts';
import type { BudgetStanding } from '../billing/token-budgets.ts';
import { formatCredits } from '../billing/micro-credits.ts';
import type { SignInLink } from '../dashboard/create-sign-in-link.ts';
import type { UsageRecord } from '../generation/usage-store.ts';
import type { AccountSummary, ApiKeyView } from './operator-service.ts';

/**
 * The JSON the operator sees, shared by the admin API and the CLI's `--json` (docs/decisions/0022),
 * so a script written against one works against the other. Money is always the same pair: a decimal
 * credits string (exact, 6 decimals) under the field's name, and the integer micro-credits under
 * `<name>_micro`.
 */
export interface BalanceJson {
  balance: string;
  held: string;
  available: string;
  balance_micro: number;
  held_micro: number;
  available_micro: number;
}

export type LedgerEntryJson = Omit<LedgerEntry, 'amount'> & {
  amount: string;
  amount_micro: number;
};

export type UsageRecordJson = Omit<UsageRecord, 'cost'> & { cost: string; cost_micro: number };

export function presentBalance(balance: Balance): BalanceJson {
  return {
    balance: formatCredits(balance.balance),
    held: formatCredits(balance.held),
    available: formatCredits(balance.available),
    balance_micro: balance.balance,
    held_micro: balance.held,
    available_micro: balance.available,
  };
}

export function presentLedgerEntry(entry: LedgerEntry): LedgerEntryJson {
  return { ...entry, amount: formatCredits(entry.amount), amount_micro: entry.amount };
}

export function presentUsageRecord(record: UsageRecord): UsageRecordJson {
  return { ...record, cost: formatCredits(record.cost), cost_micro: record.cost };
}

export function presentAccountSummary(summary: AccountSummary): {
  account: Account;
  balance: BalanceJson;
  ledger: LedgerEntryJson[];
  usage: UsageRecordJson[];
} {
  return {
    account: summary.account,
    balance: presentBalance(summary.balance),
    ledger: summary.entries.map(presentLedgerEntry),
    usage: summary.usage.map(presentUsageRecord),
  };
}

export function presentCreditChange(result: { entry: LedgerEntry; balance: Balance }): {
  entry: LedgerEntryJson;
  balance: BalanceJson;
} {
  return { entry: presentLedgerEntry(result.entry), balance: presentBalance(result.balance) };
}

/** The token text is in the answer once; `api_key` is the stored record without its hash. */
export function presentCreatedToken(created: { token: string; apiKey: ApiKeyView }): {
  token: string;
  api_key: ApiKeyView;
} {
  return { token: created.token, api_key: created.apiKey };
}

/** A dashboard sign-in link: the URL carries its one-time secret (docs/decisions/0168). */
export function presentSignInLink(link: SignInLink): { url: string; expires_at: string } {
  return { url: link.url, expires_at: new Date(link.expiresAt).toISOString() };
}

/** Where a token's budget stands this period, calls in flight counted as reserved. */
export function presentBudgetStanding(standing: BudgetStanding) {
  return {
    period: standing.budget.period,
    amount: formatCredits(standing.budget.amount),
    amount_micro: standing.budget.amount,
    spent: formatCredits(standing.spent),
    spent_micro: standing.spent,
    reserved_micro: standing.reserved,
    remaining: formatCredits(standing.remaining),
    remaining_micro: standing.remaining,
    period_start: new Date(standing.periodStart).toISOString(),
    resets_at: new Date(standing.resetsAt).toISOString(),
  };
}
