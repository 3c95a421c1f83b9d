import type { Generated } from 'kysely';

import type { LedgerEntryKind } from '../../billing/credit-ledger.ts';

/**
 * Table types shared by the SQLite and PostgreSQL adapters. Money is integer micro-credits and
 * times are epoch milliseconds (docs/architecture.md); both come back as JS numbers on either
 * dialect (PostgreSQL int8 through a checked type parser).
 */
export type StoreDialect = 'sqlite' | 'postgres';

export type HoldStatus = 'open' | 'settled' | 'released';

export interface AccountsTable {
  id: string;
  name: string;
  /** 0 or 1: one representation that both dialects bind and compare the same way. */
  is_admin: number;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  hash: string;
  display_prefix: string;
  /** JSON array of permission labels. */
  permissions: string;
  interface: string;
  /** JSON array of public model ids, or null for every model. */
  allowed_models: string | null;
  expires_at: number | null;
  disabled_at: number | null;
  created_at: number;
  /** Migration 0013: the spend budget in micro-credits per `budget_period`, or null for none. */
  budget_micro: Generated<number | null>;
  budget_period: Generated<string | null>;
  /** Migration 0013: JSON of the token's own limit set, or null for the configured defaults. */
  limits: Generated<string | null>;
}

export interface LedgerEntriesTable {
  /** Insertion order, so entries written in the same millisecond still list newest first. */
  sequence: Generated<number>;
  id: string;
  account_id: string;
  amount: number;
  kind: LedgerEntryKind;
  reason: string;
  request_id: string | null;
  created_at: number;
}

export interface BalancesTable {
  account_id: string;
  balance: number;
  held: number;
}

export interface HoldsTable {
  id: string;
  account_id: string;
  amount: number;
  status: HoldStatus;
  expires_at: number;
}

export interface UsageRecordsTable {
  sequence: Generated<number>;
  request_id: string;
  account_id: string;
  api_key_id: string;
  surface: string;
  model: string;
  deployment: string | null;
  input_tokens: number;
  input_cache_read_tokens: number;
  input_cache_write_5m_tokens: number;
  input_cache_write_1h_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost: number;
  /** Migration 0004: the part of the price neither hold nor balance covered (not charged). */
  shortfall: Generated<number>;
  /** Migration 0004: the settlement that wrote the record; unique, so a retry lands once. */
  settlement_id: string | null;
  /**
   * Migration 0011: the reason of the charge a settlement took, null when it charged nothing or
   * no settlement wrote the record. A record with one is the usage entry of the credits ledger.
   */
  charge_reason: string | null;
  latency_ms: number;
  /** Migration 0013: milliseconds until the answer's first byte left, null when none did. */
  first_token_ms: Generated<number | null>;
  outcome: string;
  status: number;
  created_at: number;
}

/** Migration 0014: usage records summed per UTC hour, token, model and deployment ('' for none). */
export interface UsageRollupsTable {
  account_id: string;
  hour: number;
  api_key_id: string;
  model: string;
  deployment: string;
  requests: number;
  input_tokens: number;
  input_cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  ledger_entries: LedgerEntriesTable;
  balances: BalancesTable;
  holds: HoldsTable;
  usage_records: UsageRecordsTable;
  usage_rollups: UsageRollupsTable;
}
