/** The audit history's table (auditStore.ts), one migration in database.ts. */

/**
 * Written out, as a migration never changes. Append-only: a trigger refuses every UPDATE, and
 * rows leave only through retention (DELETE of the oldest). `changes` is JSON of the changed
 * fields' old and new values (never a publicApiKey or a password).
 */
export const AUDIT_SCHEMA = `
  CREATE TABLE audit_entries (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    actor TEXT NOT NULL,
    channel TEXT NOT NULL,
    action TEXT NOT NULL,
    reason TEXT,
    key TEXT,
    changes TEXT NOT NULL,
    address TEXT
  ) STRICT;
  CREATE INDEX audit_entries_by_account ON audit_entries(account_id, id);
  CREATE INDEX audit_entries_by_key ON audit_entries(key, id) WHERE key IS NOT NULL;
  CREATE INDEX audit_entries_by_time ON audit_entries(at);
  CREATE TRIGGER audit_entries_append_only BEFORE UPDATE ON audit_entries
  BEGIN
    SELECT RAISE(ABORT, 'audit entries are append-only');
  END;
`;
