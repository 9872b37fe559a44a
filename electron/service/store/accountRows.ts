import type { Account } from "../domain/accounts.ts";

// Accounts: rows and codecs the same on SQLite (accountStore.ts) and PostgreSQL
// (postgres/postgresAccounts.ts). No SQL dialect and no connection here, so neither store imports
// the other's code.

/** An accounts row as both databases answer it. */
export interface AccountRow {
  id: number;
  account_key: string;
  username: string;
  password_hash: string;
  parent_id: number | null;
  created_at: number;
}

export const ACCOUNT_COLUMNS = "id, account_key, username, password_hash, parent_id, created_at";

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    accountKey: row.account_key,
    username: row.username,
    passwordHash: row.password_hash,
    parentId: row.parent_id,
    createdAt: row.created_at,
  };
}
