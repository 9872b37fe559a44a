import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeDir, runCli, SQLITE_ONLY, startServe } from "../../harness/keyServiceProcess.ts";

/**
 * A KEY_SERVICE_DATABASE_URL exported for a team server stays in the shell: an explicit --data-dir
 * on the command line wins over it for every command (as any flag wins over its variable), so the
 * SQLite commands keep working beside it. The URL is never reached: it names a port nothing
 * listens on, and its password must never be printed.
 */

const envUrl = { KEY_SERVICE_DATABASE_URL: "postgres://keydesk:hunter2-x@127.0.0.1:1/keydesk" };

describe("--data-dir beside KEY_SERVICE_DATABASE_URL", { skip: SQLITE_ONLY }, () => {
  let dir: string;
  before(async () => {
    dir = await makeTempDir("keydesk-storage-args-");
  });
  after(async () => {
    await removeDir(dir);
  });

  test("account add and list work on the data dir", async () => {
    const data = join(dir, "accounts");
    const added = await runCli(["account", "add", "--data-dir", data, "--username", "owner"], {
      ...envUrl,
      KEY_SERVICE_PASSWORD: "a long password 1",
    });
    assert.equal(added.code, 0, added.stderr);
    assert.ok(existsSync(join(data, "keydesk.db")));
    const listed = await runCli(["account", "list", "--data-dir", data], envUrl);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /owner/);
    assert.doesNotMatch(listed.stderr + added.stderr, /hunter2/);
  });

  test("serve serves the data dir", async () => {
    const data = join(dir, "serve");
    const serve = await startServe({ dataDir: data, env: envUrl });
    try {
      assert.ok(existsSync(join(data, "keydesk.db")));
    } finally {
      await serve.stop();
    }
  });

  test("backup and check work on the data dir, as before", async () => {
    const data = join(dir, "accounts");
    const checked = await runCli(["check", "--data-dir", data], envUrl);
    assert.equal(checked.code, 0, checked.stderr);
    const backedUp = await runCli(["backup", "--data-dir", data, "--out", join(dir, "b.kdbackup")], {
      ...envUrl,
      KEY_SERVICE_BACKUP_PASSPHRASE: "a long enough passphrase",
    });
    assert.equal(backedUp.code, 0, backedUp.stderr);
  });

  test("--data-key-file with a data dir says it goes with a database URL, naming the variable", async () => {
    const refused = await runCli(
      ["account", "list", "--data-dir", join(dir, "accounts"), "--data-key-file", join(dir, "k")],
      envUrl,
    );
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /--data-key-file goes with a database URL \(--database-url, or KEY_SERVICE_DATABASE_URL/,
    );
  });

  test("--data-dir and --database-url both on the command line are still refused", async () => {
    const both = await runCli(
      ["account", "list", "--data-dir", join(dir, "accounts"), "--database-url", "postgres://h/db"],
      { KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64") },
    );
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /give either --data-dir \(SQLite\) or --database-url \(PostgreSQL\), not both/);
  });
});
