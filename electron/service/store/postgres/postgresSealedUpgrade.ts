import type pg from "pg";
import { anyFormatOpener } from "../../crypto/legacySealedValues.ts";
import type { SecretBox } from "../../crypto/secretBox.ts";
import {
  KEY_CHECK,
  LEGACY_SEALING,
  openCell,
  RESEAL_STEP_ROWS,
  SEALED_COLUMNS,
  type SealedColumn,
} from "../sealedColumns.ts";
import { advisoryLockKey, inTransaction, sqlOn } from "./sql.ts";

/** Held while one replica seals the values again: the others wait, then find nothing to do. */
const UPGRADE_LOCK = advisoryLockKey("keydesk/sealing-upgrade");

interface Row {
  id: number;
  context: string;
  sealed: Buffer;
}

/**
 * Seals again, with `box`, every value an earlier Keydesk sealed with AES-256-GCM, when the
 * database says some may be there (LEGACY_SEALING, set by the schema migration): all of them in
 * one transaction under an advisory lock, so replicas starting at once do it once, and a failure
 * leaves the database as it was. Answers how many values were rewritten.
 */
export async function upgradePostgresSealedValues(
  pool: pg.Pool,
  dataKey: Buffer,
  box: SecretBox,
): Promise<number> {
  const flagged = await pool.query("SELECT 1 FROM meta WHERE name = $1", [LEGACY_SEALING]);
  if (flagged.rowCount === 0) return 0;
  return inTransaction(pool, (client) => upgradeLocked(client, dataKey, box));
}

async function upgradeLocked(client: pg.PoolClient, dataKey: Buffer, box: SecretBox): Promise<number> {
  const sql = sqlOn(client);
  await sql.rows("SELECT pg_advisory_xact_lock($1)", [UPGRADE_LOCK]);
  if ((await sql.rows("SELECT 1 FROM meta WHERE name = $1", [LEGACY_SEALING])).length === 0) return 0;
  const open = anyFormatOpener(box, dataKey);
  let rewritten = 0;
  for (const column of SEALED_COLUMNS) {
    for (let after = 0; ; ) {
      const rows = await sql.rows<Row>(column.select("$1", "$2"), [after, RESEAL_STEP_ROWS]);
      const ids: number[] = [];
      const sealed: Buffer[] = [];
      for (const row of rows) {
        const { plaintext, current } = openCell(open, column, row.id, row.sealed, row.context);
        if (current) continue;
        ids.push(row.id);
        sealed.push(box.encrypt(plaintext, row.context));
      }
      if (ids.length > 0) {
        rewritten += await sql.count(
          `UPDATE ${column.table} t SET ${column.column} = v.sealed
           FROM unnest($1::bigint[], $2::bytea[]) AS v(id, sealed) WHERE t.id = v.id`,
          [ids, sealed],
        );
      }
      if (rows.length < RESEAL_STEP_ROWS) break;
      after = (rows.at(-1) as Row).id;
    }
  }
  await sql.count("DELETE FROM meta WHERE name = $1", [LEGACY_SEALING]);
  return rewritten;
}

/**
 * What the database records of its data key, read before any migration: the check value (none on
 * a database not created yet) and, when there is none, one sealed value to try the key on.
 */
export async function postgresKeyCheck(
  pool: pg.Pool,
): Promise<{ check: string | undefined; sample: { context: string; sealed: Buffer } | undefined }> {
  const sql = sqlOn(pool);
  const [tables] = await sql.rows<{ meta: string | null; keys: string | null }>(
    "SELECT to_regclass('meta') AS meta, to_regclass('api_keys') AS keys",
  );
  if (tables?.meta == null) return { check: undefined, sample: undefined };
  const [row] = await sql.rows<{ value: string }>("SELECT value FROM meta WHERE name = $1", [KEY_CHECK]);
  if (row !== undefined || tables.keys == null) return { check: row?.value, sample: undefined };
  const [sample] = await sql.rows<Row>((SEALED_COLUMNS[0] as SealedColumn).select("$1", "$2"), [0, 1]);
  return { check: undefined, sample: sample && { context: sample.context, sealed: sample.sealed } };
}
