import type { Account } from "../domain/accounts.ts";
import { ACCOUNT_COLUMNS, type AccountRow, toAccount } from "./accountRows.ts";
import type { Db } from "./database.ts";

export class AccountStore {
  readonly #byUsername;
  readonly #byAccountKey;
  readonly #byId;
  readonly #all;
  readonly #insert;
  readonly #setPassword;

  constructor(db: Db) {
    this.#byUsername = db.prepare<[string], AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE username = ?`,
    );
    this.#byAccountKey = db.prepare<[string], AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE account_key = ?`,
    );
    this.#byId = db.prepare<[number], AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`);
    this.#all = db.prepare<[], AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY id`);
    this.#insert = db.prepare<[string, string, string, number | null, number], AccountRow>(
      `INSERT INTO accounts (account_key, username, password_hash, parent_id, created_at)
       VALUES (?, ?, ?, ?, ?) RETURNING ${ACCOUNT_COLUMNS}`,
    );
    this.#setPassword = db.prepare<[string, number]>("UPDATE accounts SET password_hash = ? WHERE id = ?");
  }

  byUsername(username: string): Account | undefined {
    const row = this.#byUsername.get(username);
    return row && toAccount(row);
  }

  byAccountKey(accountKey: string): Account | undefined {
    const row = this.#byAccountKey.get(accountKey);
    return row && toAccount(row);
  }

  byId(id: number): Account | undefined {
    const row = this.#byId.get(id);
    return row && toAccount(row);
  }

  list(): Account[] {
    return this.#all.all().map(toAccount);
  }

  insert(account: Omit<Account, "id">): Account {
    const row = this.#insert.get(
      account.accountKey,
      account.username,
      account.passwordHash,
      account.parentId,
      account.createdAt,
    );
    return toAccount(row as AccountRow);
  }

  setPasswordHash(id: number, passwordHash: string): void {
    this.#setPassword.run(passwordHash, id);
  }

  /** Whether `ancestorId` is `accountId` itself or one of its parents, at any depth. */
  manages(ancestorId: number, accountId: number): boolean {
    let current: Account | undefined = this.byId(accountId);
    for (let depth = 0; current && depth < 64; depth++) {
      if (current.id === ancestorId) return true;
      current = current.parentId === null ? undefined : this.byId(current.parentId);
    }
    return false;
  }
}
