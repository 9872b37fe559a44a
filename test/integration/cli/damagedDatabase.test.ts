import assert from "node:assert/strict";
import { closeSync, cpSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * A damaged database file is said in words, naming the file and what to do: `serve` refuses to
 * start on it, a running service answers 503 where it meets the damage (and keeps serving the
 * rest), `key-service check` reports it. A full disk fails the write that met it, in words, loses
 * nothing answered before, and leaves reads working.
 */

const PASSWORD = "a long enough password 1";
const auth = basic("admin", PASSWORD);
const KEYS = "/settings/1/accounts/_/api-keys";
const dirs: string[] = [];
let sound: string;

before(async () => {
  sound = await fresh();
  const serve = await startServe({ dataDir: sound });
  try {
    for (let i = 0; i < 300; i++) {
      const created = await request(serve.url, {
        path: KEYS,
        authorization: auth,
        body: { name: `key ${i}` },
      });
      assert.equal(created.status, 200, created.text);
    }
  } finally {
    await serve.stop();
  }
});
after(async () => {
  for (const dir of dirs) await removeDir(dir);
});

async function fresh(): Promise<string> {
  const dir = await makeTempDir("keydesk-damaged-");
  dirs.push(dir);
  await addAccount(dir, "admin", PASSWORD);
  return dir;
}

/** A copy of the sound data directory with one page of the keys table overwritten by garbage. */
async function damagedCopy(): Promise<{ dir: string; file: string }> {
  const dir = await makeTempDir("keydesk-damaged-");
  dirs.push(dir);
  cpSync(sound, dir, { recursive: true });
  const file = join(dir, "keydesk.db");
  const db = new Database(file, { readonly: true });
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const leaves = db
    .prepare("SELECT pageno FROM dbstat WHERE name = 'api_keys' AND pagetype = 'leaf' ORDER BY pageno")
    .all() as { pageno: number }[];
  db.close();
  assert.ok(leaves.length > 4, `only ${leaves.length} leaf pages`);
  const page = (leaves[Math.floor(leaves.length / 2)] as { pageno: number }).pageno;
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
  return { dir, file };
}

describe("at start", () => {
  test("serve exits 1 with one line naming the file, that it is damaged, and what to do", async () => {
    const { dir, file } = await damagedCopy();
    const result = await runCli(["serve", "--port", "0", "--data-dir", dir]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(
      lines[0] as string,
      new RegExp(`^key-service: the database ${file.replaceAll("/", "\\/")} is damaged`),
    );
    assert.match(lines[0] as string, /restore the data directory from a backup/);
    assert.match(lines[0] as string, /key-service check --data-dir DIR/);
  });

  test("a file that is no database at all is damaged too", async () => {
    const dir = await makeTempDir("keydesk-damaged-");
    dirs.push(dir);
    writeFileSync(join(dir, "keydesk.db"), Buffer.alloc(8192, 0x41));
    const result = await runCli(["serve", "--port", "0", "--data-dir", dir]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /^key-service: the database .*keydesk\.db is damaged \(file is not a database\)/,
    );
  });

  test("the sound directory still starts, checked", async () => {
    const serve = await startServe({ dataDir: sound });
    await serve.stop();
  });
});

describe("at run time (start check off)", () => {
  test("a list that meets the damage answers 503 naming the file; the service stays up and serves the rest", async () => {
    const { dir, file } = await damagedCopy();
    const serve = await startServe({ dataDir: dir, args: ["--start-check-max-mb", "0"] });
    try {
      const list = await request(serve.url, { path: KEYS, authorization: auth });
      assert.equal(list.status, 503, list.text);
      const { messageId, text } = (
        list.json as { requestError: { serviceException: { messageId: string; text: string } } }
      ).requestError.serviceException;
      assert.equal(messageId, "SERVICE_UNAVAILABLE");
      assert.ok(text.startsWith(`the database ${file} is damaged`), text);
      assert.equal(
        (await request(serve.url, { path: "/local/1/accounts", authorization: auth })).status,
        200,
      );
      assert.equal(
        (await request(serve.url, { path: KEYS, authorization: auth })).status,
        503,
        "again, the same",
      );
    } finally {
      await serve.stop();
    }
  });
});

describe("key-service check", () => {
  test("reports a sound directory ok, with the data key, and exits 0", async () => {
    const result = await runCli(["check", "--data-dir", sound]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /integrity: ok \(\d+ pages checked in [\d.]+ s\)/);
    assert.match(result.stdout, /data key: ok \(.* opens all 300 sealed values of this database\)/);
  });

  test("reports the damage and exits 1", async () => {
    const { dir, file } = await damagedCopy();
    const result = await runCli(["check", "--data-dir", dir]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /integrity: (\d+ problem\(s\)|damaged: database disk image is malformed)/);
    assert.match(result.stdout, /^ {4}table api_keys: /m, "the damaged table is named");
    assert.match(
      result.stderr,
      new RegExp(`the database ${file.replaceAll("/", "\\/")} is damaged \\(integrity\\)`),
    );
  });

  test("names the damaged table when SQLite cannot check the file as a whole", async () => {
    const { dir } = await damagedCopy();
    // The accounts table's root page overwritten too: the whole-file check stops at it.
    const file = join(dir, "keydesk.db");
    const db = new Database(file, { readonly: true });
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'accounts'").get() as {
      rootpage: number;
    };
    db.close();
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);
    const result = await runCli(["check", "--data-dir", dir]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /^ {4}table accounts: /m, result.stdout);
    assert.match(result.stdout, /^ {4}table api_keys: /m, result.stdout);
    assert.doesNotMatch(result.stdout, /^ {4}table tfa_applications: /m, "a sound table is not listed");
  });

  test("says when the data key is not the database's", async () => {
    const result = await runCli(["check", "--data-dir", sound], {
      KEY_SERVICE_DATA_KEY: Buffer.alloc(32, 7).toString("base64"),
    });
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /data key: KEY_SERVICE_DATA_KEY is not the data key this database was created with/,
    );
  });

  test("names the sealed values that do not open with the data key, and exits 1", async () => {
    const dir = await makeTempDir("keydesk-damaged-");
    dirs.push(dir);
    cpSync(sound, dir, { recursive: true });
    const db = new Database(join(dir, "keydesk.db"));
    const { id, sealed } = db
      .prepare("SELECT id, public_api_key_sealed AS sealed FROM api_keys LIMIT 1 OFFSET 7")
      .get() as {
      id: number;
      sealed: Buffer;
    };
    sealed[20] = (sealed[20] as number) ^ 1;
    db.prepare("UPDATE api_keys SET public_api_key_sealed = ? WHERE id = ?").run(sealed, id);
    db.close();
    const result = await runCli(["check", "--data-dir", dir]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /integrity: ok/);
    assert.match(result.stdout, /data key: 1 of 300 sealed values do not open with .*data\.key \(altered\):/);
    assert.match(result.stdout, new RegExp(`api_keys\\.public_api_key_sealed of row ${id}\\b`));
    assert.match(result.stderr, /is damaged \(data key\)/);
  });

  test("a directory without a database is an error, not a report", async () => {
    const dir = await makeTempDir("keydesk-damaged-");
    dirs.push(dir);
    const result = await runCli(["check", "--data-dir", dir]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /there is no database at .*keydesk\.db: nothing to check/);
  });
});

describe("a full disk", {
  skip: process.platform !== "linux" && "RLIMIT_FSIZE through prlimit is Linux's",
}, () => {
  test("fails the write that met it in words, loses nothing answered, and reads go on", async () => {
    const dir = await fresh();
    const limit = statSync(join(dir, "keydesk.db")).size + 256 * 1024;
    const serve = await startServe({ dataDir: dir, fileSizeLimit: limit });
    const answered: string[] = [];
    let refused: { status: number; text: string } | undefined;
    try {
      for (let i = 0; i < 5000 && !refused; i++) {
        const created = await request(serve.url, {
          path: KEYS,
          authorization: auth,
          body: { name: `k${i}` },
        });
        if (created.status === 200) answered.push((created.json as { key: string }).key);
        else refused = created;
      }
      assert.ok(refused, `${answered.length} creates and the disk never filled`);
      assert.equal(refused.status, 503, refused.text);
      assert.match(refused.text, /is full: this change was not saved/);
      const list = await request(serve.url, { path: KEYS, authorization: auth });
      assert.equal(list.status, 200, "reads go on");
    } finally {
      await serve.stop();
    }
    const again = await startServe({ dataDir: dir });
    try {
      const list = await request(again.url, { path: KEYS, authorization: auth });
      const kept = new Set((list.json as { apiKeys: { key: string }[] }).apiKeys.map((key) => key.key));
      assert.deepEqual(
        answered.filter((key) => !kept.has(key)),
        [],
        "every answered create is there",
      );
    } finally {
      await again.stop();
    }
  });
});
