import { anyFormatOpener } from "../crypto/legacySealedValues.ts";
import { createSecretBox, type SecretBox } from "../crypto/secretBox.ts";
import { type Db, readMeta, tableExists, writeMeta } from "./database.ts";
import {
  DIGEST_ONLY_TABLES,
  KEY_CHECK,
  LEGACY_SEALING,
  openCell,
  RESEAL_STEP_ROWS,
  SEALED_COLUMNS,
  type SealedColumn,
} from "./sealedColumns.ts";

/**
 * Sealing every secret of a SQLite database again: once after the upgrade from AES-256-GCM (same
 * data key, only values in the old format are rewritten), and on a restore under another data key
 * (every value, and the keyed digests). Each runs in one transaction: a database is never left
 * with some values in one state and some in the other.
 */

type Open = ReturnType<typeof anyFormatOpener>;

interface Row {
  id: number;
  context: string | number;
  sealed: Buffer;
}

/** A sealed column's values with their contexts, read in steps of RESEAL_STEP_ROWS (bounded memory). */
function* sealedRows(
  db: Db,
  column: SealedColumn,
): Generator<{ id: number; context: string; sealed: Buffer }> {
  const read = db.prepare<{ after: number; limit: number }, Row>(column.select("@after", "@limit"));
  for (let after = 0; ; ) {
    const rows = read.all({ after, limit: RESEAL_STEP_ROWS });
    for (const row of rows) yield { id: row.id, context: String(row.context), sealed: row.sealed };
    if (rows.length < RESEAL_STEP_ROWS) return;
    after = (rows.at(-1) as Row).id;
  }
}

/**
 * Seals every value again with `to` (under a new key: all of them, with their digests; otherwise
 * only those not yet in the current format); the number of values rewritten.
 */
function resealColumns(db: Db, open: Open, to: SecretBox, newKey: boolean): number {
  let rewritten = 0;
  // A backup of an earlier schema may not have the table yet (its migration comes at the next open).
  if (newKey)
    for (const { table } of DIGEST_ONLY_TABLES)
      if (tableExists(db, table)) db.prepare(`DELETE FROM ${table}`).run();
  for (const column of SEALED_COLUMNS) {
    if (newKey && column.droppedOnNewKey) {
      db.prepare(`DELETE FROM ${column.table}`).run();
      continue;
    }
    const digest = newKey ? column.digestColumn : undefined;
    const update = db.prepare(
      `UPDATE ${column.table} SET ${column.column} = @sealed${digest ? `, ${digest} = @digest` : ""} WHERE id = @id`,
    );
    for (const { id, context, sealed } of sealedRows(db, column)) {
      const { plaintext, current } = openCell(open, column, id, sealed, context);
      if (current && !newKey) continue;
      update.run({
        id,
        sealed: to.encrypt(plaintext, context),
        ...(digest && { digest: to.digest(plaintext) }),
      });
      rewritten += 1;
    }
  }
  return rewritten;
}

/**
 * Seals again, with `box`, every value still in the format of an earlier Keydesk, when the
 * database says some may be (LEGACY_SEALING, set by the migration). Safe with another process
 * opening the same database at once: the flag is read again inside the write transaction.
 * Answers how many values were rewritten.
 */
export function upgradeSealedValues(db: Db, dataKey: Buffer, box: SecretBox): number {
  if (readMeta(db, LEGACY_SEALING) === undefined) return 0;
  return db
    .transaction(() => {
      if (readMeta(db, LEGACY_SEALING) === undefined) return 0;
      const rewritten = resealColumns(db, anyFormatOpener(box, dataKey), box, false);
      db.prepare("DELETE FROM meta WHERE name = ?").run(LEGACY_SEALING);
      return rewritten;
    })
    .immediate();
}

/**
 * Re-seals every secret of a database under another data key (a restore onto a machine that sets
 * KEY_SERVICE_DATA_KEY): each sealed value is opened with the old key (in either format) and sealed
 * again, with the same context, under the new one; keyed digests are computed again. Idempotent
 * creates' records are dropped: their request digests cannot be computed again without the
 * requests (a retry of a create answered before the backup then creates another key). So are
 * IBSSO sessions (DIGEST_ONLY_TABLES): their tokens are not kept, so no digest could match again.
 */
export function resealUnderNewKey(db: Db, fromKey: Buffer, to: SecretBox): void {
  // The old ciphertexts are zeroed where they were, not left in freed space.
  db.pragma("secure_delete = ON");
  db.transaction(() => {
    resealColumns(db, anyFormatOpener(createSecretBox(fromKey), fromKey), to, true);
    writeMeta(db, KEY_CHECK, to.checkValue);
    // Everything is in the current format now (an older schema's migration may set it again: the
    // upgrade then finds nothing to rewrite).
    db.prepare("DELETE FROM meta WHERE name = ?").run(LEGACY_SEALING);
  })();
}

/** One sealed value of the database, of any table (none in a database that holds no secret). */
export function firstSealedValue(db: Db): { context: string; sealed: Buffer } | undefined {
  for (const column of SEALED_COLUMNS) {
    if (!tableExists(db, column.table)) continue;
    const row = db.prepare<{ after: number; limit: number }, Row>(column.select("@after", "@limit")).get({
      after: 0,
      limit: 1,
    });
    if (row) return { context: String(row.context), sealed: row.sealed };
  }
  return undefined;
}

/**
 * Tries every sealed value with the data key (in either format), changing nothing: how many were
 * tried, and where those that do not open are (at most `limit` places named).
 */
export function checkSealedValues(
  db: Db,
  dataKey: Buffer,
  limit: number,
): { checked: number; failed: number; places: string[] } {
  const open = anyFormatOpener(createSecretBox(dataKey), dataKey);
  const result = { checked: 0, failed: 0, places: [] as string[] };
  for (const column of SEALED_COLUMNS) {
    if (!tableExists(db, column.table)) continue;
    for (const row of sealedRows(db, column)) {
      result.checked += 1;
      try {
        open(row.sealed, row.context);
      } catch {
        result.failed += 1;
        if (result.places.length < limit)
          result.places.push(`${column.table}.${column.column} of row ${row.id}`);
      }
    }
  }
  return result;
}
