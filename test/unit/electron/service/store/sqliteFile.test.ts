import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSecretBox } from "../../../../../electron/service/crypto/secretBox.ts";
import { DATABASE_FILE, type DataDir, openDataDir } from "../../../../../electron/service/dataDir.ts";
import { newKeyId, newPublicApiKey } from "../../../../../electron/service/domain/identifiers.ts";
import {
  countKeysAndAccounts,
  isSqliteError,
  madeSchema,
  openDatabaseFile,
  snapshotDatabase,
  storedKeyCheck,
} from "../../../../../electron/service/store/sqliteFile.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { addStoredAccount } from "../../../../harness/tempDataDir.ts";

/**
 * The database as a file, for backup, `check` and the desktop app's restore dialog: what they read
 * of it beside a running service (whose connection stays open here), and the copy they make.
 */

let dir: string;
let data: DataDir;
const dataKey = randomBytes(32);

before(async () => {
  dir = await makeTempDir();
  data = openDataDir({ dataDir: dir, dataKey });
  const accounts = ["owner", "other"].map((username) => addStoredAccount(data, username));
  for (let index = 0; index < 3; index++) {
    const owner = accounts[0] as (typeof accounts)[number];
    data.apiKeys.insert(
      owner.id,
      owner.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      {
        name: `k${index}`,
        allowedIPs: null,
        permissions: ["ALL"],
        validFrom: null,
        validTo: null,
        enabled: true,
      },
      index,
    );
  }
});

after(async () => {
  data.close();
  await removeDir(dir);
});

test("a read-only open beside the running service counts its keys and accounts and reads its data key's check value", () => {
  const db = openDatabaseFile(join(dir, DATABASE_FILE), { readonly: true, busyTimeoutMs: 2000 });
  try {
    assert.deepEqual(countKeysAndAccounts(db), { keys: 3, accounts: 2 });
    assert.equal(storedKeyCheck(db), createSecretBox(dataKey).checkValue);
  } finally {
    db.close();
  }
});

test("opening a file that is not there creates nothing; a file that is no database is SQLite's refusal", () => {
  const missing = join(dir, "missing.db");
  assert.throws(() => openDatabaseFile(missing, { readonly: true }), isSqliteError);
  assert.equal(existsSync(missing), false);
  const garbage = join(dir, "garbage.db");
  writeFileSync(garbage, randomBytes(4096));
  assert.throws(() => countKeysAndAccounts(openDatabaseFile(garbage, { readonly: true })), isSqliteError);
});

test("a snapshot holds what was committed; refused at the check value, nothing is written", () => {
  const copy = join(dir, "copy.db");
  let seen: string | undefined;
  snapshotDatabase(join(dir, DATABASE_FILE), copy, (check) => {
    seen = check;
  });
  assert.equal(seen, createSecretBox(dataKey).checkValue);
  const db = openDatabaseFile(copy, { readonly: true });
  assert.deepEqual(countKeysAndAccounts(db), { keys: 3, accounts: 2 });
  db.close();

  const refused = join(dir, "refused.db");
  assert.throws(
    () =>
      snapshotDatabase(join(dir, DATABASE_FILE), refused, () => {
        throw new Error("another key");
      }),
    /another key/,
  );
  assert.equal(existsSync(refused), false);
});

test("the schema a version makes: the migrations' objects required, the sort indexes and ANALYZE's tables optional", () => {
  const { required, optional } = madeSchema(1);
  assert.ok(required.some((object) => object.type === "table" && object.name === "api_keys"));
  assert.ok(optional.some((object) => object.name === "sqlite_stat1"));
  const names = new Set(required.map((object) => object.name));
  assert.ok(optional.every((object) => !names.has(object.name)));
});
