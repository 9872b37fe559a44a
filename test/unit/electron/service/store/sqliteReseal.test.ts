import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { readKeyFile } from "../../../../../electron/service/crypto/dataKey.ts";
import { legacyGcmOpener } from "../../../../../electron/service/crypto/legacySealedValues.ts";
import {
  createSecretBox,
  hasSealedFormat,
  type SecretBox,
} from "../../../../../electron/service/crypto/secretBox.ts";
import { openDataDir } from "../../../../../electron/service/dataDir.ts";
import { readMeta } from "../../../../../electron/service/store/database.ts";
import { LEGACY_SEALING, SEALED_COLUMNS } from "../../../../../electron/service/store/sealedColumns.ts";
import {
  resealUnderNewKey,
  upgradeSealedValues,
} from "../../../../../electron/service/store/sqliteReseal.ts";
import { copyF31ab92DataDir, F31AB92_FIXTURE } from "../../../../harness/fixtureDataDir.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

/**
 * A data directory an earlier Keydesk sealed with AES-256-GCM (test/fixtures/data-f31ab92) is
 * sealed again with libsodium's XChaCha20-Poly1305 the first time it opens with its data key:
 * every value, in one transaction, with the database as it was kept beside it. A restore of such
 * a database under another data key reads the old format too.
 */

const written = JSON.parse(readFileSync(join(F31AB92_FIXTURE, "written.json"), "utf8")) as {
  keys: { key: string; publicApiKey: string; accountKey: string }[];
};

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

async function fixtureCopy(): Promise<string> {
  const dir = await makeTempDir("keydesk-reseal-");
  dirs.push(dir);
  copyF31ab92DataDir(dir);
  return dir;
}

interface SealedCell {
  table: string;
  context: string;
  sealed: Buffer;
}

/** Every sealed value of the database, with its context. */
function sealedCells(db: Database.Database): SealedCell[] {
  return SEALED_COLUMNS.flatMap((column) =>
    (
      db.prepare(column.select("@after", "@limit")).all({ after: 0, limit: 1_000_000 }) as {
        context: string | number;
        sealed: Buffer;
      }[]
    ).map((row) => ({ table: column.table, context: String(row.context), sealed: row.sealed })),
  );
}

function opensWith(box: SecretBox, cell: SealedCell): boolean {
  try {
    box.decrypt(cell.sealed, cell.context);
    return true;
  } catch {
    return false;
  }
}

test("every value of a data directory sealed with AES-256-GCM is sealed again with XChaCha20-Poly1305 at its first open", async () => {
  const dir = await fixtureCopy();
  const dataKey = readKeyFile(join(dir, "data.key"));
  const data = openDataDir({ dataDir: dir });
  try {
    const cells = sealedCells(data.db);
    assert.deepEqual(
      [...new Set(cells.map((cell) => cell.table))].sort(),
      ["api_keys", "sync_links", "tfa_pins", "tfa_sends"],
      "the fixture has a sealed value in each of these tables",
    );
    for (const cell of cells) {
      assert.ok(hasSealedFormat(cell.sealed), `${cell.table} ${cell.context} is in the new format`);
      assert.ok(opensWith(data.box, cell), `${cell.table} ${cell.context} opens with the box`);
    }
    assert.equal(readMeta(data.db, LEGACY_SEALING), undefined, "the upgrade is recorded as done");
    for (const key of written.keys) {
      const account = await data.store.accounts.byAccountKey(key.accountKey);
      const stored = await data.store.apiKeys.get(account?.id ?? -1, key.key);
      assert.equal(stored?.publicApiKey, key.publicApiKey);
    }
    assert.equal(upgradeSealedValues(data.db, dataKey, data.box), 0, "a second upgrade has nothing to do");
  } finally {
    data.close();
  }
  // The database as that version left it, kept beside it (database.ts), holds the old format.
  const copy = new Database(join(dir, "keydesk.db.before-schema-3"), { readonly: true });
  try {
    const legacy = legacyGcmOpener(dataKey);
    for (const cell of sealedCells(copy)) assert.doesNotThrow(() => legacy(cell.sealed, cell.context));
  } finally {
    copy.close();
  }
});

test("a value that does not open stops the upgrade before anything is rewritten", async () => {
  const dir = await fixtureCopy();
  const raw = new Database(join(dir, "keydesk.db"));
  const before = sealedCells(raw);
  const forged = raw
    .prepare("SELECT id, public_api_key_sealed AS sealed FROM api_keys ORDER BY id DESC")
    .get() as {
    id: number;
    sealed: Buffer;
  };
  forged.sealed[forged.sealed.length - 1] = (forged.sealed.at(-1) as number) ^ 1;
  raw.prepare("UPDATE api_keys SET public_api_key_sealed = ? WHERE id = ?").run(forged.sealed, forged.id);
  raw.close();
  assert.throws(() => openDataDir({ dataDir: dir }), /does not open/);
  const after = new Database(join(dir, "keydesk.db"), { readonly: true });
  try {
    assert.equal(readMeta(after, LEGACY_SEALING), "1", "still to be done");
    const cells = sealedCells(after);
    assert.equal(cells.length, before.length);
    assert.ok(
      cells.every(
        (cell) => !hasSealedFormat(cell.sealed) || before.some((old) => old.sealed.equals(cell.sealed)),
      ),
      "no value was rewritten",
    );
  } finally {
    after.close();
  }
});

test("a restore under another data key reads the old format and leaves every value sealed under the new key", async () => {
  const dir = await fixtureCopy();
  const oldKey = readKeyFile(join(dir, "data.key"));
  const newKey = Buffer.alloc(32, 7);
  const db = new Database(join(dir, "keydesk.db"));
  resealUnderNewKey(db, oldKey, createSecretBox(newKey));
  db.close();
  const data = openDataDir({ dataDir: dir, dataKey: newKey });
  try {
    for (const cell of sealedCells(data.db)) assert.ok(opensWith(data.box, cell), `${cell.table} opens`);
    const key = written.keys[0] as (typeof written.keys)[number];
    const found = await data.store.apiKeys.findByPublicApiKey(key.publicApiKey);
    assert.equal(found?.key, key.key, "found through the digest computed under the new key");
  } finally {
    data.close();
  }
});

test("a restore under another data key drops IBSSO sessions: their token digests could never match again", async () => {
  const dir = await makeTempDir("keydesk-reseal-sessions-");
  dirs.push(dir);
  const oldKey = Buffer.alloc(32, 3);
  const before = openDataDir({ dataDir: dir, dataKey: oldKey });
  const digest = before.store.ibssoSessions.digestOf("d3c49f59-734a-4daf-be9a-6188b540358e");
  try {
    await before.store.write(async (tx) => {
      const account = await tx.accounts.insert({
        accountKey: "0933F3BC087D2A617AC6DCB2EF5B8A61",
        username: "sso",
        passwordHash: "unused",
        parentId: null,
        createdAt: 0,
      });
      await tx.ibssoSessions.insert(account.id, digest, 0, Number.MAX_SAFE_INTEGER);
    });
    assert.ok(await before.store.ibssoSessions.byDigest(digest), "the session is there before the restore");
  } finally {
    before.close();
  }
  const db = new Database(join(dir, "keydesk.db"));
  resealUnderNewKey(db, oldKey, createSecretBox(Buffer.alloc(32, 7)));
  assert.equal(db.prepare("SELECT count(*) FROM ibsso_sessions").pluck().get(), 0);
  db.close();
});
