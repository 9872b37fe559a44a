import { ACCOUNT_COLUMNS, type AccountRow, toAccount } from "../accountRows.ts";
import { type AccountWrites, DuplicateError } from "../store.ts";
import { type Sql, sqlState, UNIQUE_VIOLATION } from "./sql.ts";

/** As SQLite's AccountStore.manages: a chain of parents longer than this is not followed. */
const MAX_DEPTH = 64;

/** `changed` is told the id of every account a write inserts or changes (the change feed's notification). */
export function postgresAccounts(sql: Sql, changed: (accountId: number) => void): AccountWrites {
  const one = async (where: string, value: unknown) => {
    const [row] = await sql.rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE ${where} = $1`, [
      value,
    ]);
    return row && toAccount(row);
  };
  return {
    byUsername: (username) => one("username", username),
    byAccountKey: (accountKey) => one("account_key", accountKey),
    byId: (id) => one("id", id),
    list: async () =>
      (await sql.rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY id`)).map(toAccount),
    async manages(ancestorId, accountId) {
      const [row] = await sql.rows<{ manages: boolean }>(
        `WITH RECURSIVE chain(id, parent_id, depth) AS (
           SELECT id, parent_id, 1 FROM accounts WHERE id = $2
           UNION ALL
           SELECT a.id, a.parent_id, c.depth + 1 FROM accounts a JOIN chain c ON a.id = c.parent_id
           WHERE c.depth < $3)
         SELECT EXISTS (SELECT 1 FROM chain WHERE id = $1) AS manages`,
        [ancestorId, accountId, MAX_DEPTH],
      );
      return row?.manages === true;
    },
    async insert(account) {
      // ON CONFLICT DO NOTHING rather than a unique violation: the write's transaction stays
      // usable, as SQLite's does, for a caller that answers the DuplicateError and goes on.
      let rows: AccountRow[];
      try {
        rows = await sql.rows<AccountRow>(
          `INSERT INTO accounts (account_key, username, password_hash, parent_id, created_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
          [account.accountKey, account.username, account.passwordHash, account.parentId, account.createdAt],
        );
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION) rows = [];
        else throw error;
      }
      const [row] = rows;
      if (!row) throw new DuplicateError(`an account named ${account.username} already exists`);
      changed(row.id);
      return toAccount(row);
    },
    async setPasswordHash(id, passwordHash) {
      await sql.count("UPDATE accounts SET password_hash = $1 WHERE id = $2", [passwordHash, id]);
      changed(id);
    },
  };
}
