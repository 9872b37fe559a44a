import { anyFormatOpener } from "../crypto/legacySealedValues.ts";
import type { SecretBox } from "../crypto/secretBox.ts";

/**
 * Every column that holds a value sealed with the data key, with the context each value is bound
 * to, in SQL both databases run as it is: what an upgrade of the sealing format and a restore
 * under another data key go through (a test checks no sealed column of the schema is missing).
 * The contexts are the ones the stores seal with (apiKeyStore, tfaPinStore, syncStore,
 * idempotencyStore): a value re-sealed here opens there.
 */

export interface SealedColumn {
  table: string;
  column: string;
  /**
   * A step of the rows: `id`, `context` and `sealed` of up to `limit` rows with an id above `after`,
   * in id order (the placeholders are the dialect's).
   */
  select(after: string, limit: string): string;
  /** The keyed digest (HMAC) of the opened value, kept beside it: computed again under a new key. */
  digestColumn?: string;
  /** Whether the rows of this table are dropped, not re-sealed, when the data key changes. */
  droppedOnNewKey?: boolean;
}

const sealed = (table: string, column: string, context: string, from: string): SealedColumn => ({
  table,
  column,
  select: (after, limit) => `SELECT t.id AS id, ${context} AS context, t.${column} AS sealed FROM ${from}
    WHERE t.id > ${after} AND t.${column} IS NOT NULL ORDER BY t.id LIMIT ${limit}`,
});

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    ...sealed("api_keys", "public_api_key_sealed", "t.key", "api_keys t"),
    digestColumn: "public_api_key_digest",
  },
  sealed("tfa_pins", "pin_sealed", "t.pin_id", "tfa_pins t"),
  sealed("tfa_sends", "text_sealed", "p.pin_id", "tfa_sends t JOIN tfa_pins p ON p.id = t.pin_ref"),
  sealed("sync_links", "remote_password_sealed", "'sync-link-password:' || t.account_id", "sync_links t"),
  {
    ...sealed(
      "idempotent_requests",
      "response_sealed",
      "'idempotent-request/' || t.account_id || '/' || t.idempotency_key",
      "idempotent_requests t",
    ),
    // Their request digests (request_digest) cannot be computed again without the requests.
    droppedOnNewKey: true,
  },
];

/**
 * Tables that hold a keyed digest of a value they do not keep (no sealed value to open): their
 * digests cannot be computed again under another data key, so a restore under a new key drops
 * their rows (IBSSO sessions end; their apps create new ones). A test checks no `_digest`
 * column of the schema is missing from here or SEALED_COLUMNS.
 */
export const DIGEST_ONLY_TABLES: readonly { table: string; digestColumn: string }[] = [
  { table: "ibsso_sessions", digestColumn: "token_digest" },
];

/** The meta row that tells whether a data key is the one the database was created with. */
export const KEY_CHECK = "data_key_check";

/**
 * Set in `meta` (by the schema migration that came with libsodium) while a database may hold
 * values sealed with AES-256-GCM: the store that opens it seals them again, then removes it.
 * Migrations write this name: it never changes.
 */
export const LEGACY_SEALING = "legacy_sealing_pending";

/** Rows read per step of a re-seal: bounded memory whatever the table's size. */
export const RESEAL_STEP_ROWS = 5_000;

/**
 * Opens a value for a re-seal; one that does not open names its place: the database is damaged, or
 * was sealed with another data key.
 */
export function openCell<T>(
  open: (sealed: Buffer, context: string) => T,
  column: SealedColumn,
  id: number,
  sealed: Buffer,
  context: string,
): T {
  try {
    return open(sealed, context);
  } catch {
    throw new Error(
      `the value sealed in ${column.table}.${column.column} of row ${id} does not open with this data key: ` +
        "the database is damaged or was sealed with another key; nothing was changed",
    );
  }
}

/** Whether a sealed value opens with this data key, in either format. */
export function opensAny(
  box: SecretBox,
  dataKey: Buffer,
  value: { context: string; sealed: Buffer },
): boolean {
  try {
    anyFormatOpener(box, dataKey)(value.sealed, value.context);
    return true;
  } catch {
    return false;
  }
}
