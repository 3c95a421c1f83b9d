export interface Account {
  id: string;
  name: string;
  /** Administrator accounts may hold `connected` tokens (spec §1, §4.13). */
  isAdmin: boolean;
  createdAt: number;
}

/** Accounts: who owns tokens and a credits balance. */
export interface AccountStore {
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
}
