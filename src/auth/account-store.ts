export interface Account {
  id: string;
  name: string;
  /** Administrator accounts may hold `connected` tokens (docs/api.md). */
  isAdmin: boolean;
  createdAt: number;
}

/** Accounts: who owns tokens and a credits balance. */
export interface AccountStore {
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  /** Names are unique (a second account of a taken name is refused by `createAccount`). */
  findAccountByName(name: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
}
